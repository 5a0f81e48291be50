// `deadbolt exec`: run a command as one claimed run of a job (or, with --ping-key, report it by pings).
//
// Order matters here: signal handlers go in before the claim (a SIGTERM between claim and spawn must
// still finish the run it claimed), heartbeats stop before the finish (a late heartbeat must not
// renew a released lease), and the exit code is the command's own whatever Deadbolt says.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { flag, num, parseArgs, str, UsageError, wholeSeconds } from "./args.ts";
import { clientFrom, CONNECTION_HELP, CONNECTION_OPTIONS } from "./connection.ts";
import { EXIT, describeApiError, say } from "./exit-codes.ts";
import { DeadboltError, DeadboltUnreachableError, keepAlive, type ClaimResult, type Deadbolt } from "./sdk.ts";
import { TailBuffer } from "./tail-buffer.ts";

export const EXEC_HELP = `usage: deadbolt exec --job SLUG [options] -- COMMAND [ARG…]
       deadbolt exec --ping-key KEY -- COMMAND [ARG…]

Runs COMMAND once across the fleet: claims a run of job SLUG (its lease and its slot), runs the
command with heartbeats, records its exit code and output tail, and exits with the command's code.
When the lease is held or the slot already ran, prints one line and exits 0 without running it.

Options (with --job):
  --ttl D                  lease TTL, e.g. 90s, 15m, 2h, 1d or seconds (default: the job's)
  --wait D                 while the lease is held, wait up to D for it (default 0: skip at once)
  --slot ISO               claim this slot (an ISO 8601 instant) instead of the server's current one
  --holder NAME            who runs it, shown in the ledger (default: this host's name)
  --skipped-exit-code N    exit code when not run because the lease is held or the slot done (default 0)
  --quiet                  print nothing when not run for that reason (cron mails any output)
  --kill-on-lease-loss     send SIGTERM to the command when a heartbeat finds the lease lost
  --on-unreachable MODE    skip (default): if Deadbolt cannot be reached to claim, do not run, exit 75
                           run: run the command anyway, without a lease (fail open)
With --ping-key (no lease, no API key): pings /ping/KEY/start before and /ping/KEY/EXITCODE after,
with the output tail as the body. The command runs even if the pings fail.

${CONNECTION_HELP}

The command: several words run directly, without a shell (exec --job x -- php bin/console charge);
a single word is run by /bin/sh -c, so pipes, && and $VARS work (exec --job x -- 'a && b').
stdin is passed through; stdout and stderr stream through unchanged. The command sees
DEADBOLT_RUN_ID, DEADBOLT_FENCING_TOKEN, DEADBOLT_IDEMPOTENCY_KEY, DEADBOLT_LEASE_NAME, DEADBOLT_SLOT
(DEADBOLT_PING_RID with --ping-key). SIGINT, SIGTERM and SIGHUP are passed on to the command.

Exit codes: the command's own (128+N when killed by signal N); 0 (or --skipped-exit-code) when not
run; 75 Deadbolt unreachable, command not run; 78 no/refused API key, unknown job, bad request;
2 usage; 126/127 the command could not be executed / was not found.`;

const EXEC_OPTIONS = {
  ...CONNECTION_OPTIONS,
  job: "string", "ping-key": "string", ttl: "duration", wait: "duration", slot: "string", holder: "string",
  "skipped-exit-code": "integer", "kill-on-lease-loss": "boolean", "on-unreachable": "string", quiet: "boolean",
} as const;

const RUN_ENV = ["DEADBOLT_RUN_ID", "DEADBOLT_FENCING_TOKEN", "DEADBOLT_IDEMPOTENCY_KEY", "DEADBOLT_LEASE_NAME", "DEADBOLT_SLOT", "DEADBOLT_PING_RID"];
const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export interface ExecSettings {
  command: string[];
  job?: string;
  pingKey?: string;
  ttlSeconds?: number;
  waitSeconds: number;
  slot?: string;
  holder?: string;
  skippedExitCode: number;
  quiet: boolean;
  killOnLeaseLoss: boolean;
  onUnreachable: "skip" | "run";
}

/** The exec arguments, checked. Pure, so the unit tests can hold it. */
export function parseExecArgs(argv: string[]): { help: true } | { help: false; settings: ExecSettings; options: Record<string, string | number | boolean> } {
  const { options, rest } = parseArgs(argv, EXEC_OPTIONS, { stopAtPositional: true });
  if (flag(options, "help")) return { help: true };
  const command = rest ?? [];
  if (command.length === 0) throw new UsageError("no command given: deadbolt exec --job SLUG -- COMMAND [ARG…]");
  const job = str(options, "job");
  const pingKey = str(options, "ping-key");
  if (!job && !pingKey) throw new UsageError("--job SLUG is required (or --ping-key KEY for ping-only mode)");
  if (job && pingKey) throw new UsageError("give --job or --ping-key, not both");
  if (pingKey) {
    for (const name of ["ttl", "wait", "slot", "kill-on-lease-loss", "on-unreachable", "skipped-exit-code", "quiet"]) {
      if (name in options) throw new UsageError(`--${name} applies to --job runs only (ping-only mode holds no lease)`);
    }
  }
  const ttl = num(options, "ttl");
  const slot = str(options, "slot");
  if (slot !== undefined && !/^\d{4}-\d\d-\d\dT/.test(slot)) throw new UsageError(`--slot must be an ISO 8601 instant like 2026-01-05T10:00:00Z (got '${slot}')`);
  const skippedExitCode = num(options, "skipped-exit-code") ?? 0;
  if (skippedExitCode < 0 || skippedExitCode > 255) throw new UsageError("--skipped-exit-code must be 0–255");
  const onUnreachable = str(options, "on-unreachable") ?? "skip";
  if (onUnreachable !== "skip" && onUnreachable !== "run") throw new UsageError(`--on-unreachable must be skip or run (got '${onUnreachable}')`);
  const waitSeconds = num(options, "wait") ?? 0;
  return {
    help: false,
    options,
    settings: {
      command, job, pingKey, slot, holder: str(options, "holder"), skippedExitCode, onUnreachable, waitSeconds,
      ttlSeconds: ttl === undefined ? undefined : wholeSeconds(ttl, "ttl"),
      killOnLeaseLoss: flag(options, "kill-on-lease-loss"),
      quiet: flag(options, "quiet"),
    },
  };
}

export async function execCommand(argv: string[]): Promise<number> {
  const parsed = parseExecArgs(argv);
  if (parsed.help) {
    console.log(EXEC_HELP);
    return EXIT.ok;
  }
  const { settings, options } = parsed;
  const relay = new SignalRelay();
  try {
    if (settings.pingKey) return await execWithPings(clientFrom(options, { needApiKey: false }), settings, settings.pingKey, relay);
    return await execAsRun(clientFrom(options), settings, settings.job!, relay);
  } finally {
    relay.dispose();
  }
}

async function execAsRun(client: Deadbolt, s: ExecSettings, slug: string, relay: SignalRelay): Promise<number> {
  let claim: ClaimResult;
  try {
    claim = await client.claimRunWaiting(slug, { holder: s.holder, ttlSeconds: s.ttlSeconds, slot: s.slot, waitSeconds: s.waitSeconds, signal: relay.stopWaiting });
  } catch (error) {
    if (error instanceof DeadboltUnreachableError) {
      if (s.onUnreachable === "skip") {
        say(`${slug} not run: ${error.message}; failing closed (exit ${EXIT.unreachable}; --on-unreachable=run would run it without a lease)`);
        return EXIT.unreachable;
      }
      say(`${error.message}; running ${slug} WITHOUT a lease (--on-unreachable=run): another host may run it too`);
      if (relay.received) return signalExitCode(relay.received);
      return (await runCommand(s.command, commandEnv({}), relay, new TailBuffer())).exitCode;
    }
    if (error instanceof DeadboltError) {
      say(`${slug} not run: ${describeApiError(error)}`);
      return EXIT.config;
    }
    throw error;
  }

  if (!claim.claimed) {
    if (relay.received) return signalExitCode(relay.received);
    if (!s.quiet) say(skippedLine(slug, claim, s.waitSeconds));
    return s.skippedExitCode;
  }

  const tail = new TailBuffer();
  let exitCode: number;
  if (relay.received) {
    // Interrupted while claiming: the run was claimed, so it is finished, not left to be abandoned.
    exitCode = signalExitCode(relay.received);
    tail.push(`deadbolt: interrupted by ${relay.received} before the command started\n`);
  } else {
    let signalCommand: ((signal: NodeJS.Signals) => void) | undefined;
    const keeper = keepAlive({
      ttlMs: claim.ttlSeconds * 1000,
      what: `run ${claim.runId} of ${slug}`,
      renew: (timeoutMs) => client.heartbeatRun(claim.runId, { ttlSeconds: s.ttlSeconds, retryForMs: 0, timeoutMs }),
      warn: say,
      onLost: (error) => {
        const action = s.killOnLeaseLoss ? "sending SIGTERM to the command (--kill-on-lease-loss)" : "the command keeps running (--kill-on-lease-loss would stop it)";
        say(`LEASE LOST: ${error.message}. Another host may start ${slug} now; ${action}`);
        if (s.killOnLeaseLoss) signalCommand?.("SIGTERM");
      },
    });
    const env = commandEnv({
      DEADBOLT_RUN_ID: claim.runId, DEADBOLT_FENCING_TOKEN: String(claim.fencingToken), DEADBOLT_IDEMPOTENCY_KEY: claim.idempotencyKey,
      DEADBOLT_LEASE_NAME: claim.leaseName, DEADBOLT_SLOT: claim.slot,
    });
    try {
      ({ exitCode } = await runCommand(s.command, env, relay, tail, (signal) => (signalCommand = signal)));
    } finally {
      keeper.stop();
    }
  }

  try {
    const finished = await client.finishRun(claim.runId, { exitCode, output: tail.toString() });
    if (finished.leaseLost) say(`run ${claim.runId} recorded as ${finished.outcome}, but its lease had been lost before it finished: ${finished.message ?? ""}`);
  } catch (error) {
    const why = error instanceof DeadboltError ? describeApiError(error) : (error as Error).message;
    say(`could not record the finish of run ${claim.runId} (${why}); exiting with the command's code ${exitCode}`);
  }
  return exitCode;
}

async function execWithPings(client: Deadbolt, s: ExecSettings, pingKey: string, relay: SignalRelay): Promise<number> {
  // The rid pairs our start with our finish even when runs of the job overlap.
  const rid = randomBytes(8).toString("hex");
  // Pings watch, they do not lock: a failed ping is reported and the command runs regardless.
  const ping = async (kind: "start" | number, body?: string) => {
    try {
      await client.ping(pingKey, kind, { rid, body });
    } catch (error) {
      const why = error instanceof DeadboltError ? describeApiError(error) : (error as Error).message;
      say(`${kind === "start" ? "start" : "finish"} ping failed: ${why}`);
    }
  };
  await ping("start");
  if (relay.received) return signalExitCode(relay.received);
  const tail = new TailBuffer();
  const { exitCode } = await runCommand(s.command, commandEnv({ DEADBOLT_PING_RID: rid }), relay, tail);
  await ping(Math.min(exitCode, 255), tail.toString());
  return exitCode;
}

function commandEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // An outer deadbolt's run is not this one's.
  for (const name of RUN_ENV) delete env[name];
  return { ...env, ...vars };
}

/** "lease held by web-1 until 02:15:00Z (slot 2026-01-05T02:00:00Z)" — the GET_LOCK(name, 0) line. */
export function skippedLine(slug: string, claim: Exclude<ClaimResult, { claimed: true }>, waitedSeconds = 0, now = new Date()): string {
  const waited = waitedSeconds > 0 ? `, after waiting ${waitedSeconds}s` : "";
  if (claim.reason === "lease_held") {
    return `${slug} not run: lease held by ${claim.holder ?? "another holder"} until ${clockTime(claim.expiresAt, now)} (slot ${isoSeconds(claim.slot)}${waited})`;
  }
  const { runId, holder, outcome } = claim.doneBy;
  return `${slug} not run: slot ${isoSeconds(claim.slot)} already ran (run ${runId} on ${holder ?? "an unnamed holder"}, ${outcome}${waited})`;
}

const isoSeconds = (iso: string) => iso.replace(/\.\d{3}Z$/, "Z");

/** The time of day when it is today (UTC), the whole instant otherwise. */
function clockTime(iso: string, now: Date): string {
  const full = isoSeconds(new Date(iso).toISOString());
  return full.slice(0, 10) === now.toISOString().slice(0, 10) ? full.slice(11) : full;
}

export const signalExitCode = (signal: NodeJS.Signals) => 128 + (constants.signals[signal] ?? 0);

/** Signal handlers for the whole exec: before the command starts they note the signal (a second one
 * quits at once); while it runs they pass it on. */
class SignalRelay {
  received: NodeJS.Signals | null = null;
  private readonly abort = new AbortController();
  private target: ((signal: NodeJS.Signals) => void) | null = null;
  private readonly handlers = new Map<NodeJS.Signals, () => void>();

  constructor() {
    for (const signal of FORWARDED_SIGNALS) {
      const handler = () => this.receive(signal);
      this.handlers.set(signal, handler);
      process.on(signal, handler);
    }
  }

  get stopWaiting(): AbortSignal {
    return this.abort.signal;
  }

  private receive(signal: NodeJS.Signals) {
    if (this.target) return this.target(signal);
    if (this.received === signal) process.exit(signalExitCode(signal));
    this.received ??= signal;
    this.abort.abort();
  }

  forwardTo(target: ((signal: NodeJS.Signals) => void) | null) {
    this.target = target;
  }

  dispose() {
    for (const [signal, handler] of this.handlers) process.off(signal, handler);
  }
}

/** Runs the command to its end; its stdout/stderr stream through and into `tail`. */
export function runCommand(
  command: string[],
  env: NodeJS.ProcessEnv,
  relay: SignalRelay,
  tail: TailBuffer,
  /** Receives the function that signals the running command. */
  onStart?: (signal: (signal: NodeJS.Signals) => void) => void,
): Promise<{ exitCode: number }> {
  const [file, args] = command.length === 1 ? ["/bin/sh", ["-c", command[0]]] : [command[0], command.slice(1)];
  // Its own process group, so a signal reaches everything it started, unless stdin is a terminal:
  // a background group reading the terminal would be stopped (SIGTTIN), and the terminal already
  // sends Ctrl-C to the whole foreground group, the command included.
  const ownGroup = !process.stdin.isTTY;
  const child = spawn(file, args, { stdio: ["inherit", "pipe", "pipe"], env, detached: ownGroup });
  const signalCommand = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      // The command's whole process group when it has its own: `sh -c 'a && b'` passes nothing on.
      process.kill(ownGroup ? -child.pid : child.pid, signal);
    } catch {
      // It exited in the meantime.
    }
  };
  onStart?.(signalCommand);
  relay.forwardTo((signal) => {
    if (!ownGroup && signal === "SIGINT") return;
    signalCommand(signal);
  });
  // A reader that went away (`deadbolt exec … | head`) must not take the run down with it, nor stall
  // it: from then on the output only goes to the tail.
  const gone = new Set<NodeJS.WritableStream>();
  const streams = [[child.stdout!, process.stdout], [child.stderr!, process.stderr]] as const;
  const onError = streams.map(([from, to]) => () => {
    gone.add(to);
    from.resume();
  });
  streams.forEach(([, to], i) => to.on("error", onError[i]));
  for (const [from, to] of streams) {
    from.on("data", (chunk: Buffer) => {
      tail.push(chunk);
      if (gone.has(to) || to.write(chunk)) return;
      // Slow reader: hold the command back rather than buffer without bound.
      from.pause();
      to.once("drain", () => from.resume());
    });
  }

  return new Promise((resolve) => {
    let done = false;
    let exitCode: number | null = null;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      relay.forwardTo(null);
      streams.forEach(([, to], i) => to.off("error", onError[i]));
      resolve({ exitCode: code });
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // a failed kill, not a failed start
      const code = error.code === "ENOENT" ? EXIT.commandNotFound : EXIT.cannotExecute;
      const line = `deadbolt: cannot run '${file}': ${error.code === "ENOENT" ? "command not found" : error.message}\n`;
      process.stderr.write(line);
      tail.push(line);
      finish(code);
    });
    child.once("exit", (code, signal) => {
      exitCode = code ?? signalExitCode(signal!);
      // Its output may still be in the pipes; a background process it left holding them gets 2 s.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(exitCode!);
      }, 2000).unref();
    });
    child.once("close", (code, signal) => finish(exitCode ?? code ?? signalExitCode(signal!)));
  });
}
