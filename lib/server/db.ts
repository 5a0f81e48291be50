// One database handle for the whole process: Prisma for the ledger's queries, plus the raw driver
// for the hot paths (pings, leases) where Prisma costs ~10x (../shared/NOTES.md). Typed as the
// SQLite client: its query API is nearly a subset of PostgreSQL's, so code that type-checks against
// it runs on both.
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { PrismaClient as SqliteClient } from "../../generated/sqlite/client.ts";
import { PrismaClient as PgClient } from "../../generated/pg/client.ts";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { DEFAULT_DATABASE_URL } from "./config.ts";
import { startCheckpointer } from "./sqlite-checkpointer.ts";

export type Prisma = SqliteClient;
export type Dialect = "sqlite" | "postgresql";

export interface Database {
  dialect: Dialect;
  url: string;
  prisma: Prisma;
  /** Raw connection for SQLite (WAL, busy timeout set). */
  sqlite?: BetterSqlite3.Database;
  /** Raw pool for PostgreSQL. */
  pg?: pg.Pool;
  /** Tests travel in time by setting this; unset, the database's clock decides (see sql.ts). */
  clock?: () => Date;
  close(): Promise<void>;
}

/** "Now" for code outside a write transaction (Prisma use cases): the test clock, or this machine's. */
export const nowOf = (db: Database): Date => db.clock?.() ?? new Date();

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

/** `file:./data/x.db` → absolute path; the directory is created when missing. */
export function sqlitePath(url: string): string {
  const file = url.replace(/^file:/, "").replace(/\?.*$/, "");
  const abs = path.resolve(file);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  return abs;
}

export function openSqlite(file: string): BetterSqlite3.Database {
  const conn = new BetterSqlite3(file, { timeout: 5000 });
  conn.pragma("journal_mode = WAL");
  // WAL + NORMAL is durable against process crashes (the SIGKILL case); only an OS crash can lose
  // the last commits. FULL costs an fsync per commit.
  conn.pragma(`synchronous = ${process.env.DEADBOLT_SQLITE_SYNC ?? "NORMAL"}`);
  conn.pragma("foreign_keys = ON");
  // The ledger's indexes are hot on every write: a 64 MiB page cache (default 2 MiB) keeps them in
  // memory, and memory-mapped reads skip a copy.
  conn.pragma("cache_size = -65536");
  conn.pragma("mmap_size = 268435456");
  conn.pragma("temp_store = MEMORY");
  // Checkpoints run in a worker thread (sqlite-checkpointer.ts); this is only the fallback.
  conn.pragma("wal_autocheckpoint = 20000");
  return conn;
}

export function openDatabase(url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL): Database {
  if (isPostgresUrl(url)) {
    const max = Number(process.env.PG_POOL_MAX ?? 10);
    const prisma = new PgClient({ adapter: new PrismaPg({ connectionString: url, max }) }) as unknown as Prisma;
    const pool = new pg.Pool({ connectionString: url, max });
    // An idle connection dropped by the server (restart, failover, DROP DATABASE … FORCE) is an
    // 'error' event on the pool: without a listener it would crash the process. The pool replaces it.
    pool.on("error", (error) => {
      if ((error as { code?: string }).code !== "57P01") console.error("deadbolt: idle PostgreSQL connection lost:", error.message);
    });
    return {
      dialect: "postgresql",
      url,
      prisma,
      pg: pool,
      async close() {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const file = sqlitePath(url);
  const sqlite = openSqlite(file);
  const stopCheckpointer = startCheckpointer(file);
  const prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 5000 }) });
  return {
    dialect: "sqlite",
    url,
    prisma,
    sqlite,
    async close() {
      await prisma.$disconnect();
      await stopCheckpointer();
      sqlite.close();
    },
  };
}

// Pinned on globalThis so the HTTP layer and Next.js's server bundle share one handle.
const g = globalThis as unknown as { __deadboltDb?: Database };

export function getDatabase(): Database {
  return (g.__deadboltDb ??= openDatabase());
}

export function setDatabase(database: Database): void {
  g.__deadboltDb = database;
}
