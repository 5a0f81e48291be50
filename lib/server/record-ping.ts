// A ping from a ping URL (`curl` in a crontab): one write transaction that stores the ping and moves
// the run ledger, answered only after COMMIT (every acknowledged ping is durable).
//
// Pairing rules (which run a ping belongs to):
// - `start` opens a new run (source "ping"). It never closes an earlier one: two starts without a
//   finish are two runs, and the checker sees them overlap.
// - A finish (success, fail, exit code) with `?rid=` closes the newest running ping-run of the job
//   with that rid. Without a rid it closes the newest running ping-run that has no rid (as
//   healthchecks.io pairs a finish with the newest start); runs started with a rid are only ever
//   closed by a finish with the same rid, so concurrent runs stay apart.
// - A finish with no open run to close (no start ping, or a concurrent finish closed it first)
//   records a run that started and finished at `now`, with no duration.
// - `log` stores the ping only, linked to the run a finish would close, if there is one.
import { OUTPUT_TAIL_BYTES, outputTail } from "../domain/runs.ts";
import { slotFor } from "../domain/schedule.ts";
import type { Database } from "./db.ts";
import { newId } from "./ids.ts";
import { LEDGER_JOB_COLUMNS, rememberJob } from "./job-ledger.ts";
import { finishRunInTx, insertRun, noteJobActivity, noteJobFinished, type FinishedRunFacts } from "./run-ledger.ts";
import { asDate, write, type Tx } from "./sql.ts";

export type PingKind = "success" | "start" | "fail" | "exit" | "log";

export interface PingInput {
  pingKey: string;
  kind: PingKind;
  /** Only for kind "exit": 0–255. */
  exitCode?: number | null;
  rid?: string | null;
  /** The raw request body (any content type), or null for none. */
  body: Buffer | null;
  method: string;
  sourceIp: string | null;
  userAgent: string | null;
}

export type PingResult = { found: false } | { found: true; pingId: string; runId: string | null };

// The whole ledger view of the job, remembered for the transaction (run-ledger.ts reads it again
// for free). Its "lastStartedAt" says whether there can be an open run at all: a job that has never
// had a start spares the run lookup on the common path (success pings only).
const JOB_BY_PING_KEY = `SELECT ${LEDGER_JOB_COLUMNS} FROM "Job" WHERE "pingKey" = ?`;
const OPEN_RUN_WITH_RID = `SELECT "id", "startedAt" FROM "Run"
  WHERE "jobId" = ? AND "rid" = ? AND "source" = 'ping' AND "outcome" = 'running' ORDER BY "id" DESC LIMIT 1`;
const OPEN_RUN_WITHOUT_RID = `SELECT "id", "startedAt" FROM "Run"
  WHERE "jobId" = ? AND "rid" IS NULL AND "source" = 'ping' AND "outcome" = 'running' ORDER BY "id" DESC LIMIT 1`;
const INSERT_PING = `INSERT INTO "Ping" ("id", "jobId", "runId", "kind", "exitCode", "body", "bodyBytes", "rid", "method", "sourceIp", "userAgent", "receivedAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The body as text, its last 100 KB only, without decoding more of a large body than is kept. */
export function bodyTail(body: Buffer | null): string | null {
  if (!body || body.length === 0) return null;
  // 3 spare bytes: the kept tail may start inside a character that began before the cut.
  const kept = body.length > OUTPUT_TAIL_BYTES + 3 ? body.subarray(body.length - OUTPUT_TAIL_BYTES - 3) : body;
  return outputTail(kept.toString("utf8"));
}

async function findOpenRun(tx: Tx, jobId: string, rid: string | null): Promise<{ id: string; startedAt: Date } | null> {
  const row = rid === null
    ? await tx.one<{ id: string; startedAt: unknown }>(OPEN_RUN_WITHOUT_RID, [jobId])
    : await tx.one<{ id: string; startedAt: unknown }>(OPEN_RUN_WITH_RID, [jobId, rid]);
  return row ? { id: row.id, startedAt: asDate(row.startedAt)! } : null;
}

export function recordPing(db: Database, input: PingInput): Promise<PingResult> {
  return write(db, (tx) => recordPingInTx(tx, input));
}

export async function recordPingInTx(tx: Tx, input: PingInput): Promise<PingResult> {
  const row = await tx.one<Record<string, unknown>>(JOB_BY_PING_KEY, [input.pingKey]);
  if (!row) return { found: false };
  const job = rememberJob(tx, row);
  const mayHaveOpenRun = job.lastStartedAt !== null;
  const now = await tx.now();
  const rid = input.rid ?? null;
  const text = bodyTail(input.body);
  let runId: string | null = null;
  /** Set when this ping recorded a finished run of its own: the job's last-run columns must move. */
  let finished: { outcome: "succeeded" | "failed"; facts: Partial<FinishedRunFacts> } | null = null;
  /** Set when closing an open run already moved the job's columns (lastPingAt included). */
  let moved = false;

  if (input.kind === "start") {
    runId = newId();
    await insertRun(tx, {
      id: runId, jobId: job.id, slot: slotFor(job.schedule, now), source: "ping", outcome: "running", rid, host: input.sourceIp,
      startedAt: now,
      // The checker's next look at this run: when it overruns (ping runs hold no lease to expire).
      checkAt: job.maxRuntimeSeconds === null ? null : new Date(now.getTime() + job.maxRuntimeSeconds * 1000),
    });
  } else if (input.kind === "log") {
    runId = mayHaveOpenRun ? ((await findOpenRun(tx, job.id, rid))?.id ?? null) : null;
  } else {
    const exitCode = input.kind === "success" ? 0 : input.kind === "fail" ? 1 : input.exitCode!;
    const result = { outcome: exitCode === 0 ? "succeeded" : "failed", exitCode, output: text, finishedAt: now, pinged: true } as const;
    const open = mayHaveOpenRun ? await findOpenRun(tx, job.id, rid) : null;
    // finishRunInTx is false when a concurrent finish (PostgreSQL) closed the run first.
    if (open && (await finishRunInTx(tx, { id: open.id, jobId: job.id, startedAt: open.startedAt }, result))) {
      runId = open.id;
      moved = true;
    } else {
      runId = newId();
      const slot = slotFor(job.schedule, now);
      const { duplicate } = await insertRun(tx, {
        id: runId, jobId: job.id, slot, source: "ping", outcome: result.outcome, rid, host: input.sourceIp,
        exitCode, output: text, startedAt: now, finishedAt: now, durationMs: null,
      });
      finished = { outcome: result.outcome, facts: { runId, host: input.sourceIp, source: "ping", slot, exitCode, durationMs: null, duplicate, pinged: true } };
    }
  }

  const pingId = newId();
  await tx.run(INSERT_PING, [
    pingId, job.id, runId, input.kind, input.kind === "exit" ? input.exitCode! : null, text, input.body?.length ?? 0, rid, input.method,
    input.sourceIp, input.userAgent, now,
  ]);
  // On PostgreSQL the job's row stays locked from its first UPDATE until COMMIT, and every ping of
  // the job waits for that lock: this ping's own updates of the job come last.
  if (finished) await noteJobFinished(tx, job.id, finished.outcome, now, finished.facts);
  // A finish already moved lastPingAt with the job's finish columns: one UPDATE of the row, not two.
  else if (!moved) await noteJobActivity(tx, job.id, now, { started: input.kind === "start", pinged: true });
  return { found: true, pingId, runId };
}
