// Gauges for Prometheus, read from the ledger with a handful of aggregate queries (each bounded by
// an index or a small table: jobs, open incidents, pending notifications).
import type { Database } from "./db.ts";

export interface LedgerGauges {
  jobs: number;
  pausedJobs: number;
  openIncidents: { kind: string; count: number }[];
  notifications: { status: string; count: number }[];
  heldLeases: number;
}

export async function readGauges(db: Database, now = new Date()): Promise<LedgerGauges> {
  const [jobs, pausedJobs, incidents, notifications, heldLeases] = await Promise.all([
    db.prisma.job.count(),
    db.prisma.job.count({ where: { paused: true } }),
    db.prisma.incident.groupBy({ by: ["kind"], where: { status: "open" }, _count: true }),
    db.prisma.notification.groupBy({ by: ["status"], where: { status: { in: ["pending", "failed"] } }, _count: true }),
    db.prisma.lease.count({ where: { holderToken: { not: null }, expiresAt: { gt: now } } }),
  ]);
  return {
    jobs,
    pausedJobs,
    openIncidents: incidents.map((i) => ({ kind: i.kind, count: i._count })),
    notifications: notifications.map((n) => ({ status: n.status, count: n._count })),
    heldLeases,
  };
}
