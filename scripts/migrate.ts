// npm run db:migrate — applies pending migrations to DATABASE_URL (start-up does this too).
import { migrate } from "../lib/server/migrate.ts";
import { readConfig } from "../lib/server/config.ts";

const { databaseUrl } = readConfig();
const applied = await migrate(databaseUrl);
console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
