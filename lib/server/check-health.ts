import type { Database } from "./db.ts";

/** Liveness plus one round trip to the database. */
export async function checkHealth(db: Database): Promise<{ reachable: boolean; latencyMs: number }> {
  const started = performance.now();
  try {
    if (db.sqlite) db.sqlite.prepare("SELECT 1").get();
    else await db.pg!.query("SELECT 1");
    return { reachable: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
  } catch {
    return { reachable: false, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
  }
}
