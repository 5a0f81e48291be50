import { AppError } from "../contracts/errors.ts";
import type { IncidentKind } from "../contracts/alerts.ts";
import type { IncidentView } from "../contracts/incidents.ts";
import type { Database } from "./db.ts";

/** Incidents newest first (open ones first when no status is asked for), keyset-paged on the id. */
export async function listIncidents(db: Database, q: { status?: "open" | "resolved"; cursor?: string; limit: number; jobSlug?: string }) {
  let jobId: string | undefined;
  if (q.jobSlug) {
    const job = await db.prisma.job.findUnique({ where: { slug: q.jobSlug }, select: { id: true } });
    if (!job) throw new AppError("not_found", `no job '${q.jobSlug}'`);
    jobId = job.id;
  }
  const rows = await db.prisma.incident.findMany({
    where: { ...(q.status ? { status: q.status } : {}), ...(jobId ? { jobId } : {}), ...(q.cursor ? { id: { lt: q.cursor } } : {}) },
    orderBy: { id: "desc" },
    take: q.limit + 1,
    include: { job: { select: { slug: true } } },
  });
  const items: IncidentView[] = rows.slice(0, q.limit).map((i) => ({
    id: i.id,
    job: i.job.slug,
    kind: i.kind as IncidentKind,
    status: i.status as IncidentView["status"],
    summary: i.summary,
    evidence: JSON.parse(i.evidence) as Record<string, unknown>,
    openedAt: i.openedAt.toISOString(),
    resolvedAt: i.resolvedAt ? i.resolvedAt.toISOString() : null,
  }));
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].id : null };
}
