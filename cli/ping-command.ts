// `deadbolt ping KEY [success|start|fail|log|CODE]`: a ping URL call, like curl from a crontab.
import { flag, parseArgs, str, UsageError } from "./args.ts";
import { clientFrom, CONNECTION_OPTIONS } from "./connection.ts";
import { EXIT } from "./exit-codes.ts";
import type { PingKind } from "./sdk.ts";

export const PING_HELP = `usage: deadbolt ping KEY [success|start|fail|log|CODE] [--rid R] [--data TEXT | --data -]

Calls the job's ping URL: /ping/KEY (success, the default), /ping/KEY/start, /ping/KEY/fail,
/ping/KEY/log or /ping/KEY/CODE (an exit code, 0–255). No API key needed: the ping key is the secret.
  --rid R        tells concurrent runs apart: a finish closes the start with the same rid
  --data TEXT    sent as the body (kept as the run's output, last 100 KB); '-' reads stdin
  --url URL      Deadbolt's address (env DEADBOLT_URL, default http://localhost:3000)
  --retry-for D  keep retrying when Deadbolt is unreachable for D (default 30s)

Exit codes: 0 recorded; 2 usage; 75 Deadbolt unreachable; 78 unknown ping key.`;

const PING_OPTIONS = { ...CONNECTION_OPTIONS, rid: "string", data: "string" } as const;

export function parsePingKind(word: string | undefined): PingKind {
  if (word === undefined || word === "success") return "success";
  if (word === "start" || word === "fail" || word === "log") return word;
  if (/^\d{1,3}$/.test(word) && Number(word) <= 255) return Number(word);
  throw new UsageError(`'${word}' is not a ping kind (success, start, fail, log, or an exit code 0–255)`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function pingCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, PING_OPTIONS);
  if (flag(options, "help")) {
    console.log(PING_HELP);
    return EXIT.ok;
  }
  const [key, kindWord, ...extra] = positionals;
  if (!key) throw new UsageError("deadbolt ping needs the job's ping KEY");
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const kind = parsePingKind(kindWord);
  const data = str(options, "data");
  const body = data === "-" ? await readStdin() : data;
  await clientFrom(options, { needApiKey: false }).ping(key, kind, { rid: str(options, "rid"), body });
  return EXIT.ok;
}
