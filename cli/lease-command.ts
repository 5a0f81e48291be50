// `deadbolt lease acquire|renew|release|validate`: the lease API for shell scripts.
import { flag, num, parseArgs, str, UsageError, wholeSeconds } from "./args.ts";
import { clientFrom, CONNECTION_HELP, CONNECTION_OPTIONS } from "./connection.ts";
import { EXIT, say } from "./exit-codes.ts";

export const LEASE_HELP = `usage: deadbolt lease acquire NAME --ttl D [--wait D] [--holder H] [--min-hold D] [--export | --json]
       deadbolt lease renew NAME [--token T] [--ttl D]
       deadbolt lease release NAME [--token T]
       deadbolt lease validate NAME [--fencing-token N]

acquire   prints DEADBOLT_LEASE_NAME=…, DEADBOLT_LEASE_TOKEN=…, DEADBOLT_FENCING_TOKEN=…,
          DEADBOLT_LEASE_EXPIRES_AT=… lines (with --export: 'export …', for eval); exit 0.
          Held by another: one line on stderr, exit 1. --wait D waits up to D (at most 300s) for it;
          --min-hold D keeps it unavailable D after acquisition even when released early.
renew     extends it by --ttl (default: its TTL) from now; exit 1 when the token no longer holds it.
release   frees it; exit 1 when the token no longer held it (it expired or was taken over).
validate  exit 0 when the fencing token is the current holder's, 1 when it is stale.
--token defaults to $DEADBOLT_LEASE_TOKEN, --fencing-token to $DEADBOLT_FENCING_TOKEN.

  if creds=$(deadbolt lease acquire billing-charge --ttl 15m --export); then
    eval "$creds"; php charge.php; deadbolt lease release billing-charge
  fi

${CONNECTION_HELP}

Exit codes: 0 done; 1 held / lost / stale; 2 usage; 75 Deadbolt unreachable; 78 no or refused API key.`;

const LEASE_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ttl: "duration", wait: "duration", holder: "string", "min-hold": "duration", export: "boolean", json: "boolean", token: "string", "fencing-token": "integer",
} as const;

const ALLOWED: Record<string, string[]> = {
  acquire: ["ttl", "wait", "holder", "min-hold", "export", "json"],
  renew: ["token", "ttl", "json"],
  release: ["token", "json"],
  validate: ["fencing-token", "json"],
};

/** A value the shell reads back as itself. */
export const shellQuote = (value: string) => (/^[A-Za-z0-9_:.,\/+=@%-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

export async function leaseCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, LEASE_OPTIONS);
  const [action, name, ...extra] = positionals;
  if (flag(options, "help") || !action) {
    console.log(LEASE_HELP);
    return flag(options, "help") ? EXIT.ok : EXIT.usage;
  }
  if (!(action in ALLOWED)) throw new UsageError(`unknown lease action '${action}' (acquire, renew, release, validate)`);
  if (!name) throw new UsageError(`deadbolt lease ${action} needs a lease NAME`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  for (const option of Object.keys(options)) {
    if (!(option in CONNECTION_OPTIONS) && !ALLOWED[action].includes(option)) throw new UsageError(`--${option} does not apply to 'lease ${action}'`);
  }
  const json = flag(options, "json");
  const print = (value: unknown) => json && console.log(JSON.stringify(value));
  const client = clientFrom(options);
  const ttl = num(options, "ttl");

  if (action === "acquire") {
    if (ttl === undefined) throw new UsageError("--ttl is required (e.g. --ttl 60s)");
    const minHold = num(options, "min-hold");
    const result = await client.acquireLease(name, {
      ttlSeconds: wholeSeconds(ttl, "ttl"), waitSeconds: num(options, "wait") ?? 0, holder: str(options, "holder"),
      minHoldSeconds: minHold === undefined ? undefined : wholeSeconds(minHold, "min-hold", 0),
    });
    print(result);
    if (!result.acquired) {
      say(`lease ${name} held by ${result.holder ?? "another holder"} until ${result.expiresAt}`);
      return EXIT.refused;
    }
    if (!json) {
      const prefix = flag(options, "export") ? "export " : "";
      const lines = { DEADBOLT_LEASE_NAME: name, DEADBOLT_LEASE_TOKEN: result.token, DEADBOLT_FENCING_TOKEN: String(result.fencingToken), DEADBOLT_LEASE_EXPIRES_AT: result.expiresAt };
      for (const [key, value] of Object.entries(lines)) console.log(`${prefix}${key}=${shellQuote(value)}`);
    }
    return EXIT.ok;
  }

  if (action === "validate") {
    const fencingToken = num(options, "fencing-token") ?? envInteger("DEADBOLT_FENCING_TOKEN");
    if (fencingToken === undefined) throw new UsageError("--fencing-token N is required (or DEADBOLT_FENCING_TOKEN)");
    const valid = await client.validateFence(name, fencingToken);
    if (json) print({ valid });
    else console.log(valid ? "valid" : "stale");
    return valid ? EXIT.ok : EXIT.refused;
  }

  const token = str(options, "token") ?? process.env.DEADBOLT_LEASE_TOKEN;
  if (!token) throw new UsageError("--token T is required (or DEADBOLT_LEASE_TOKEN)");
  if (action === "renew") {
    const result = await client.renewLease(name, token, { ttlSeconds: ttl === undefined ? undefined : wholeSeconds(ttl, "ttl") });
    print(result);
    if (!result.ok) {
      say(`lease ${name} lost: ${result.message}`);
      return EXIT.refused;
    }
    if (!json) console.log(`DEADBOLT_LEASE_EXPIRES_AT=${result.expiresAt}`);
    return EXIT.ok;
  }
  const released = await client.releaseLease(name, token);
  print({ released });
  if (!released) {
    say(`lease ${name} was no longer held with this token (it expired or was taken over)`);
    return EXIT.refused;
  }
  return EXIT.ok;
}

function envInteger(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === "") return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be an integer (got '${value}')`);
  return Number(value);
}
