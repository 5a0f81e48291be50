// Client commands of `deadbolt` (HTTP only). `keys` and `serve` run server-side: see bin/deadbolt.mjs.
const USAGE = `usage: deadbolt <command> [options]

Commands run where the database is (they read DATABASE_URL):
  keys create --name NAME [--read-only]   print a new API key (shown once)
  serve                                   run the server (same as npm start)

Clients read DEADBOLT_URL and DEADBOLT_API_KEY.`;

export async function main(args: string[]): Promise<number> {
  const [command] = args;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  console.error(`deadbolt: unknown command '${command}'\n\n${USAGE}`);
  return 2;
}
