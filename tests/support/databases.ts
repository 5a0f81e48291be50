// A fresh database per test file, on each dialect under test: runs never see each other's rows.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Dialect } from "../../lib/server/db.ts";

/** SQLite always; PostgreSQL when TEST_DATABASE_URL names a server (CI always sets it). */
export const dialects: Dialect[] = ["sqlite", ...(process.env.TEST_DATABASE_URL ? (["postgresql"] as const) : [])];

export interface TestDatabase {
  dialect: Dialect;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const name = `deadbolt_t_${process.pid}_${randomBytes(4).toString("hex")}`;
  if (dialect === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-test-"));
    return { dialect, url: `file:${path.join(dir, `${name}.db`)}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
