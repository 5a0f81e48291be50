// The exit codes of `deadbolt`, and the one place that turns an error into one line and a code.
// Codes other than the command's own are chosen from sysexits.h so a wrapper can tell them apart.
import { UsageError } from "./args.ts";
import { DeadboltError, DeadboltUnreachableError } from "./sdk.ts";

export const EXIT = {
  ok: 0,
  /** lease acquire: held by another; renew/release/validate: the token no longer holds it. */
  refused: 1,
  usage: 2,
  /** EX_SOFTWARE: a bug of ours. */
  internal: 70,
  /** EX_TEMPFAIL: Deadbolt unreachable (connection refused, timeouts, 5xx) after retrying. */
  unreachable: 75,
  /** EX_CONFIG: no API key, a key refused (401/403), an unknown job or key (404), a rejected request. */
  config: 78,
  /** As a shell says: the command could not be executed / was not found. */
  cannotExecute: 126,
  commandNotFound: 127,
} as const;

export const say = (line: string) => process.stderr.write(`deadbolt: ${line}\n`);

/** Print one line for an error and return its exit code. `command` names the subcommand for --help. */
export function reportError(error: unknown, command: string): number {
  if (error instanceof UsageError) {
    say(`${error.message} (see 'deadbolt ${command} --help')`);
    return EXIT.usage;
  }
  if (error instanceof DeadboltUnreachableError) {
    say(error.message);
    return EXIT.unreachable;
  }
  if (error instanceof DeadboltError) {
    say(describeApiError(error));
    return EXIT.config;
  }
  say(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT.internal;
}

export function describeApiError(error: DeadboltError): string {
  if (error.code === "no_api_key") return error.message;
  if (error.status === 401) return `the API key was refused (${error.message}); check DEADBOLT_API_KEY or --api-key`;
  if (error.status === 403) return `${error.message}: this command needs a read-write API key`;
  return error.message;
}
