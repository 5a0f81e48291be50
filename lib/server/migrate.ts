// Applies the committed migrations at start-up, without the Prisma CLI (it cannot fetch its engine
// here). Each prisma/<dialect>/migrations/*/migration.sql runs once, in name order, inside a
// transaction, and is recorded in Prisma's own `_prisma_migrations` table, so the Prisma CLI sees
// the same history wherever it does work. Safe with several instances starting at once: SQLite
// serialises on BEGIN IMMEDIATE, PostgreSQL on an advisory lock.
import fs from "node:fs";
import path from "node:path";
import { createHash, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Dialect } from "./db.ts";
import { isPostgresUrl, openSqlite, sqlitePath } from "./db.ts";

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function migrationsDir(dialect: Dialect): string {
  return path.join(projectRoot, "prisma", dialect, "migrations");
}

export function readMigrations(dialect: Dialect): Migration[] {
  const dir = migrationsDir(dialect);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const HISTORY_TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgresql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};

export class MigrationError extends Error {}

function checkHistory(applied: Map<string, string>, migrations: Migration[]): Migration[] {
  for (const m of migrations) {
    const checksum = applied.get(m.name);
    if (checksum !== undefined && checksum !== m.checksum) {
      throw new MigrationError(`migration ${m.name} was changed after it was applied; add a new migration instead`);
    }
  }
  return migrations.filter((m) => !applied.has(m.name));
}

function migrateSqlite(conn: BetterSqlite3.Database): string[] {
  const migrations = readMigrations("sqlite");
  conn.exec(HISTORY_TABLE.sqlite);
  const done: string[] = [];
  // BEGIN IMMEDIATE takes the write lock before reading the history: two instances starting at once
  // cannot both decide a migration is pending.
  conn.exec("BEGIN IMMEDIATE");
  try {
    const rows = conn.prepare(`SELECT migration_name AS name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`).all() as { name: string; checksum: string }[];
    for (const m of checkHistory(new Map(rows.map((r) => [r.name, r.checksum])), migrations)) {
      conn.exec(m.sql);
      conn
        .prepare(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, current_timestamp, ?, current_timestamp, 1)`)
        .run(randomUUID(), m.checksum, m.name);
      done.push(m.name);
    }
    conn.exec("COMMIT");
  } catch (error) {
    conn.exec("ROLLBACK");
    throw error;
  }
  return done;
}

async function migratePostgres(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const done: string[] = [];
  try {
    // One instance migrates; the others wait here, then find nothing pending.
    await client.query("SELECT pg_advisory_lock(727274)");
    await client.query(HISTORY_TABLE.postgresql);
    const { rows } = await client.query<{ name: string; checksum: string }>(
      `SELECT migration_name AS name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`,
    );
    for (const m of checkHistory(new Map(rows.map((r) => [r.name, r.checksum])), readMigrations("postgresql"))) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
      done.push(m.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(727274)").catch(() => {});
    await client.end();
  }
  return done;
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(url: string): Promise<string[]> {
  if (isPostgresUrl(url)) return migratePostgres(url);
  const conn = openSqlite(sqlitePath(url));
  try {
    return migrateSqlite(conn);
  } finally {
    conn.close();
  }
}
