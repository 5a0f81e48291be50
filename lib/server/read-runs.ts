import { AppError } from "../contracts/errors.ts";
import type { RunView } from "../contracts/runs.ts";
import type { RunOutcome } from "../domain/runs.ts";
import type { Database } from "./db.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

interface RunRow {
  id: string;
  slot: Date | null;
  source: string;
  outcome: string;
  holder: string | null;
  host: string | null;
  rid: string | null;
  fencingToken: number | null;
  idempotencyKey: string | null;
  exitCode: number | null;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  leaseExpiresAt: Date | null;
  leaseLostAt: Date | null;
}

const RUN_SELECT = {
  id: true, slot: true, source: true, outcome: true, holder: true, host: true, rid: true, fencingToken: true, idempotencyKey: true, exitCode: true,
  startedAt: true, finishedAt: true, durationMs: true, leaseExpiresAt: true, leaseLostAt: true,
} as const;

export function toRunView(run: RunRow, slug: string): RunView {
  return {
    id: run.id,
    job: slug,
    slot: iso(run.slot),
    source: run.source as RunView["source"],
    outcome: run.outcome as RunOutcome,
    holder: run.holder,
    host: run.host,
    rid: run.rid,
    fencingToken: run.fencingToken,
    idempotencyKey: run.idempotencyKey,
    exitCode: run.exitCode,
    startedAt: run.startedAt.toISOString(),
    finishedAt: iso(run.finishedAt),
    durationMs: run.durationMs,
    leaseExpiresAt: iso(run.leaseExpiresAt),
    leaseLostAt: iso(run.leaseLostAt),
  };
}

/** A job's runs, newest first, keyset-paged on the (time-ordered) id: page N costs what page 1 does. */
export async function listRuns(db: Database, slug: string, q: { cursor?: string; limit: number }) {
  const job = await db.prisma.job.findUnique({ where: { slug }, select: { id: true } });
  if (!job) throw new AppError("not_found", `no job '${slug}'`);
  const rows = await db.prisma.run.findMany({
    where: { jobId: job.id, ...(q.cursor ? { id: { lt: q.cursor } } : {}) },
    orderBy: { id: "desc" },
    take: q.limit + 1,
    select: RUN_SELECT,
  });
  const items = rows.slice(0, q.limit).map((r) => toRunView(r, slug));
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].id : null };
}

/** One run with its output, its pings and the lease events it caused. */
export async function getRunOrThrow(db: Database, id: string) {
  const run = await db.prisma.run.findUnique({
    where: { id },
    select: { ...RUN_SELECT, output: true, job: { select: { slug: true } }, pings: { orderBy: { id: "asc" }, take: 200 } },
  });
  if (!run) throw new AppError("not_found", `no run '${id}'`);
  const events = await db.prisma.leaseEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" }, take: 200 });
  return {
    ...toRunView(run, run.job.slug),
    output: run.output,
    pings: run.pings.map((p) => ({ id: p.id, kind: p.kind, exitCode: p.exitCode, method: p.method, sourceIp: p.sourceIp, userAgent: p.userAgent, bodyBytes: p.bodyBytes, receivedAt: p.receivedAt.toISOString() })),
    leaseEvents: events.map((e) => ({ id: e.id, kind: e.kind, holder: e.holder, fencingToken: e.fencingToken, at: e.at.toISOString(), detail: e.detail })),
  };
}
