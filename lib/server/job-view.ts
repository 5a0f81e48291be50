import type { Job } from "../../generated/sqlite/client.ts";
import type { JobView } from "../contracts/jobs.ts";
import { nextFireTimes, type Schedule } from "../domain/schedule.ts";

export type JobRow = Job & { channels?: { channelId: string }[] };

export function scheduleOf(job: Pick<Job, "scheduleKind" | "cronExpr" | "timezone" | "everySeconds">): Schedule {
  return job.scheduleKind === "cron"
    ? { kind: "cron", cron: job.cronExpr!, tz: job.timezone }
    : { kind: "every", everySeconds: job.everySeconds! };
}

/** The lease a job's runs hold: one name per job, so a lease and a job never share a name by accident. */
export const jobLeaseName = (slug: string) => `job:${slug}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toJobView(job: JobRow, opts: { withSecrets: boolean; baseUrl: string; now: Date }): JobView {
  const schedule = scheduleOf(job);
  return {
    slug: job.slug,
    name: job.name,
    tags: JSON.parse(job.tags) as string[],
    schedule: schedule.kind === "cron" ? { cron: schedule.cron, tz: schedule.tz } : { every: schedule.everySeconds },
    graceSeconds: job.graceSeconds,
    minRuntimeSeconds: job.minRuntimeSeconds,
    maxRuntimeSeconds: job.maxRuntimeSeconds,
    leaseTtlSeconds: job.leaseTtlSeconds,
    failureThreshold: job.failureThreshold,
    recoveryThreshold: job.recoveryThreshold,
    channelIds: (job.channels ?? []).map((c) => c.channelId),
    paused: job.paused,
    ...(opts.withSecrets ? { pingKey: job.pingKey, pingUrl: `${opts.baseUrl}/ping/${job.pingKey}` } : {}),
    leaseName: jobLeaseName(job.slug),
    nextSlotAt: job.paused ? null : iso(nextFireTimes(schedule, opts.now, 1)[0] ?? null),
    lastPingAt: iso(job.lastPingAt),
    lastStartedAt: iso(job.lastStartedAt),
    lastFinishedAt: iso(job.lastFinishedAt),
    lastOutcome: job.lastOutcome,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}
