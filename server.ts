// `npm start`: migrations, first admin and bootstrap key, then one process serving the API, the
// dashboard and (unless DEADBOLT_WORKER=off) the checker.
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { buildServer } from "./lib/http/server.ts";
import { readConfig } from "./lib/server/config.ts";
import { openDatabase, setDatabase } from "./lib/server/db.ts";
import { migrate } from "./lib/server/migrate.ts";
import { ensureApiKey } from "./lib/server/api-keys.ts";
import { ensureFirstAdmin } from "./lib/server/users.ts";
import { startChecker } from "./workers/checker.ts";

const startedAt = performance.now();
const config = readConfig();
const dev = process.env.NODE_ENV !== "production";

const applied = await migrate(config.databaseUrl);
if (applied.length) console.log(`deadbolt: applied migrations ${applied.join(", ")}`);

const db = openDatabase(config.databaseUrl);
setDatabase(db);
if (config.bootstrapApiKey) await ensureApiKey(db, config.bootstrapApiKey, "bootstrap (DEADBOLT_BOOTSTRAP_API_KEY)");
if (config.adminEmail && config.adminPassword && (await ensureFirstAdmin(db, config.adminEmail, config.adminPassword))) {
  console.log(`deadbolt: created the first admin, ${config.adminEmail}`);
}

let nextHandler;
if (process.env.DEADBOLT_DASHBOARD !== "off") {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const nextApp = next({ dev, dir, hostname: config.host, port: config.port });
  await nextApp.prepare();
  nextHandler = nextApp.getRequestHandler();
}

const app = await buildServer({ db, config, nextHandler });
await app.listen({ port: config.port, host: config.host });

const stopChecker = config.workerEnabled ? startChecker(db, config) : null;

const address = app.server.address();
const port = typeof address === "object" && address ? address.port : config.port;
console.log(`deadbolt: listening on http://${config.host}:${port} (${db.dialect}, ${Math.round(performance.now() - startedAt)} ms to start)`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`deadbolt: ${signal}, stopping`);
  await stopChecker?.();
  await app.close();
  await db.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
