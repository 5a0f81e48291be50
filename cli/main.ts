// Client commands of `deadbolt` (HTTP only). `keys` and `serve` run server-side: see bin/deadbolt.mjs.
import { EXIT, reportError } from "./exit-codes.ts";
import { execCommand } from "./exec.ts";
import { leaseCommand } from "./lease-command.ts";
import { pingCommand } from "./ping-command.ts";

const USAGE = `usage: deadbolt <command> [options]     (deadbolt <command> --help for more)

Clients (they speak HTTP; read DEADBOLT_URL and DEADBOLT_API_KEY, or --url and --api-key):
  exec --job SLUG [--ttl 15m] -- COMMAND…   run COMMAND once across the fleet as a run of SLUG
  exec --ping-key KEY -- COMMAND…           run COMMAND, reporting it by ping URLs only
  lease acquire|renew|release|validate NAME  the lease API for shell scripts
  ping KEY [start|fail|log|CODE]            call a job's ping URL

Commands run where the database is (they read DATABASE_URL):
  keys create --name NAME [--read-only]   print a new API key (shown once)
  serve                                   run the server (same as npm start)`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = { exec: execCommand, lease: leaseCommand, ping: pingCommand };

export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return command ? EXIT.ok : EXIT.usage;
  }
  const run = COMMANDS[command];
  if (!run) {
    console.error(`deadbolt: unknown command '${command}'\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    return await run(rest);
  } catch (error) {
    return reportError(error, command);
  }
}
