// GET /api/v1/health (one database round trip) against a bare Node http server, same run, same box.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { load, printTable, spawnListening } from "./support.ts";

export async function benchHealth(databaseUrl?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-bench-"));
  const url = databaseUrl ?? `file:${path.join(dir, "bench.db")}`;
  const bare = await spawnListening(["bench/bare-server.mjs"]);
  const deadbolt = await spawnListening(["--import", "tsx", "server.ts"], { DATABASE_URL: url, DEADBOLT_WORKER: "off" });
  try {
    // Warm both up (JIT, connections) before measuring.
    await load("warm-up", { url: bare.url, duration: 2 });
    await load("warm-up", { url: `${deadbolt.url}/api/v1/health`, duration: 2 });
    const reference = await load("bare Node http, small JSON", { url: bare.url });
    const health = await load(`Deadbolt GET /api/v1/health (${url.startsWith("file:") ? "SQLite" : "PostgreSQL"})`, { url: `${deadbolt.url}/api/v1/health` });
    printTable("GET /api/v1/health, autocannon 50 connections, keep-alive", [reference, health], reference);
    return { reference, health };
  } finally {
    await bare.stop();
    await deadbolt.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
