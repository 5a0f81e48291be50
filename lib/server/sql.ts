// Raw SQL for the hot paths (pings, leases, run claims), one statement text for both databases.
// Prisma costs ~0.3 ms a query over the driver (../shared/NOTES.md); these paths run thousands of
// times a second. Statements use `?` placeholders and quoted camelCase names (Prisma's tables).
//
// Writes go through `write()`. On SQLite they are group-committed: every write that arrives within
// a 1 ms window (DEADBOLT_BATCH_WINDOW_MS) runs in a single BEGIN IMMEDIATE … COMMIT (each in its own savepoint, so
// one failing write does not undo the others), and each caller is answered only after that COMMIT.
// The writes of a batch run one after another on one connection, so a conditional update still
// sees every write before it. On PostgreSQL each write is its own transaction from the pool.
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Database, Dialect } from "./db.ts";

export type Param = string | number | boolean | null | Date;

export interface Tx {
  dialect: Dialect;
  /** The time by the database's clock: PostgreSQL's now() (shared by every instance), or this
   * machine's clock for SQLite (the file lives on this machine). Constant within one write. */
  now(): Promise<Date>;
  one<T>(sql: string, params?: Param[]): Promise<T | undefined>;
  all<T>(sql: string, params?: Param[]): Promise<T[]>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(sql: string, params?: Param[]): Promise<number>;
}

// timestamp(3) columns hold UTC (Prisma writes them so); node-pg would read them as local time.
pg.types.setTypeParser(1114, (value: string) => new Date(value.replace(" ", "T") + "Z"));

/** SQLite stores Prisma's DateTime as text in this exact form; raw writes must match it so text
 * comparisons order correctly and Prisma reads them back. */
export const sqliteTime = (d: Date) => d.toISOString().replace("Z", "+00:00");

/** A timestamp column as read by either driver. */
export function asDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(value as string);
}

const sqliteParam = (p: Param) => (p instanceof Date ? sqliteTime(p) : typeof p === "boolean" ? (p ? 1 : 0) : p);
const pgParam = (p: Param) => (p instanceof Date ? p.toISOString() : p);

const pgTextCache = new Map<string, string>();
function pgText(sql: string): string {
  let text = pgTextCache.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (pgTextCache.size > 500) pgTextCache.clear();
    pgTextCache.set(sql, text);
  }
  return text;
}

// Prepared statements, kept per connection: preparing costs more than running a small statement.
const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
function prepared(conn: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(conn);
  if (!cache) statements.set(conn, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = conn.prepare(sql)));
  return statement;
}

function sqliteTx(db: Database, clock: () => Date): Tx {
  const conn = db.sqlite!;
  let fixedNow: Date | null = null;
  return {
    dialect: "sqlite",
    now: async () => (fixedNow ??= clock()),
    one: async <T>(sql: string, params: Param[] = []) => prepared(conn, sql).get(...params.map(sqliteParam)) as T | undefined,
    all: async <T>(sql: string, params: Param[] = []) => prepared(conn, sql).all(...params.map(sqliteParam)) as T[],
    run: async (sql: string, params: Param[] = []) => prepared(conn, sql).run(...params.map(sqliteParam)).changes,
  };
}

function pgTx(client: pg.PoolClient | pg.Pool, clock?: () => Date, knownNow?: Date): Tx {
  let fixedNow: Promise<Date> | null = knownNow ? Promise.resolve(knownNow) : null;
  return {
    dialect: "postgresql",
    now: () => (fixedNow ??= clock ? Promise.resolve(clock()) : client.query<{ now: Date }>(`SELECT (now() AT TIME ZONE 'UTC')::timestamp(3) AS now`).then((r) => r.rows[0].now)),
    one: async <T>(sql: string, params: Param[] = []) => (await client.query(pgText(sql), params.map(pgParam))).rows[0] as T | undefined,
    all: async <T>(sql: string, params: Param[] = []) => (await client.query(pgText(sql), params.map(pgParam))).rows as T[],
    run: async (sql: string, params: Param[] = []) => (await client.query(pgText(sql), params.map(pgParam))).rowCount ?? 0,
  };
}

interface Pending {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 256;
// A window rather than one turn of the event loop: requests on fresh connections (curl in a crontab)
// arrive a few hundred microseconds apart, and a batch of one pays a whole transaction. Measured with
// 50 clients opening a connection per ping: 638 → 1,841 pings/s.
const BATCH_WINDOW_MS = Number(process.env.DEADBOLT_BATCH_WINDOW_MS ?? 1);

class SqliteGroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  constructor(private readonly db: Database) {}

  enqueue<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.schedule();
      }
    });
  }

  private schedule() {
    if (BATCH_WINDOW_MS > 0) setTimeout(() => void this.flush(), BATCH_WINDOW_MS);
    else setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    const conn = this.db.sqlite!;
    const control = (sql: string) => prepared(conn, sql).run();
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      control("BEGIN IMMEDIATE");
      const now = this.db.clock?.() ?? new Date();
      for (const item of batch) {
        control("SAVEPOINT w");
        try {
          // Every write of the batch sees the same clock reading: the batch commits as one.
          const value = await item.fn(sqliteTx(this.db, () => now));
          control("RELEASE w");
          outcomes.push({ ok: true, value });
        } catch (error) {
          control("ROLLBACK TO w");
          control("RELEASE w");
          outcomes.push({ ok: false, value: error });
        }
      }
      control("COMMIT");
    } catch (error) {
      if (conn.inTransaction) control("ROLLBACK");
      // Nothing of this batch was committed: no caller may be told otherwise.
      for (const item of batch) item.reject(error);
      return this.next();
    }
    batch.forEach((item, i) => (outcomes[i].ok ? item.resolve(outcomes[i].value) : item.reject(outcomes[i].value)));
    this.next();
  }

  private next() {
    if (this.queue.length) this.schedule();
    else this.scheduled = false;
  }
}

const writers = new WeakMap<Database, SqliteGroupCommit>();

/** Runs `fn` in a write transaction and resolves once it is committed. `fn` must only talk to the
 * database (on SQLite it holds the write lock for the whole batch while it runs). */
export async function write<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.sqlite) {
    let writer = writers.get(db);
    if (!writer) writers.set(db, (writer = new SqliteGroupCommit(db)));
    return writer.enqueue(fn);
  }
  const client = await db.pg!.connect();
  try {
    // BEGIN and the database's clock in one round trip (a simple-protocol multi-statement query).
    const begun = (await client.query(`BEGIN; SELECT (now() AT TIME ZONE 'UTC')::timestamp(3) AS now`)) as unknown as pg.QueryResult<{ now: Date }>[];
    const value = await fn(pgTx(client, db.clock, db.clock ? undefined : begun[1].rows[0].now));
    await client.query("COMMIT");
    return value;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Reads outside any transaction (SQLite WAL readers never wait for the writer). */
export function read<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return fn(db.sqlite ? sqliteTx(db, () => db.clock?.() ?? new Date()) : pgTx(db.pg!, db.clock));
}
