// deadbolt keys create --name NAME [--read-only] — run where the database is (reads DATABASE_URL).
import { parseArgs } from "node:util";
import { createApiKey } from "../lib/server/api-keys.ts";
import { readConfig } from "../lib/server/config.ts";
import { openDatabase } from "../lib/server/db.ts";
import { migrate } from "../lib/server/migrate.ts";

const USAGE = "usage: deadbolt keys create --name NAME [--read-only]";
const [sub, ...rest] = process.argv.slice(2);
let options: { name?: string; "read-only"?: boolean; help?: boolean };
try {
  options = parseArgs({ args: rest, options: { name: { type: "string" }, "read-only": { type: "boolean" }, help: { type: "boolean", short: "h" } } }).values;
} catch (error) {
  console.error(`deadbolt keys: ${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (sub === "--help" || options.help) {
  console.log(USAGE);
  process.exit(0);
}
if (sub !== "create" || !options.name?.trim()) {
  console.error(USAGE);
  process.exit(2);
}
const { databaseUrl } = readConfig();
await migrate(databaseUrl);
const db = openDatabase(databaseUrl);
const { key, record } = await createApiKey(db, { name: options.name.trim(), scope: options["read-only"] ? "read" : "write" });
await db.close();
console.error(`created ${record.scope === "write" ? "read-write" : "read-only"} API key '${record.name}' (${record.prefix}…); it is shown once:`);
console.log(key);
