import { z } from "zod";
import { cronError, timezoneError } from "../domain/schedule.ts";
import { DAY, PositiveSeconds, Seconds, Slug } from "./common.ts";

export const ScheduleInput = z
  .object({
    cron: z.string().max(200).optional(),
    tz: z.string().max(64).optional(),
    every: PositiveSeconds(366 * DAY).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if ((s.cron === undefined) === (s.every === undefined)) {
      ctx.addIssue({ code: "custom", message: "give either cron (with an optional tz) or every (seconds)", path: [] });
      return;
    }
    if (s.cron !== undefined) {
      const error = cronError(s.cron);
      if (error) ctx.addIssue({ code: "custom", message: error, path: ["cron"] });
    }
    if (s.tz !== undefined) {
      if (s.every !== undefined) ctx.addIssue({ code: "custom", message: "tz applies to cron schedules only", path: ["tz"] });
      const error = timezoneError(s.tz);
      if (error) ctx.addIssue({ code: "custom", message: error, path: ["tz"] });
    }
  });
export type ScheduleInput = z.infer<typeof ScheduleInput>;

export const JOB_DEFAULTS = {
  graceSeconds: 300,
  leaseTtlSeconds: 900,
  failureThreshold: 1,
  recoveryThreshold: 1,
} as const;

const jobFields = {
  name: z.string().trim().min(1).max(200),
  tags: z.array(z.string().trim().min(1).max(40).regex(/^[^,\s]+$/, "must not contain spaces or commas")).max(20),
  schedule: ScheduleInput,
  graceSeconds: Seconds(30 * DAY),
  minRuntimeSeconds: Seconds(30 * DAY).nullable(),
  maxRuntimeSeconds: PositiveSeconds(30 * DAY).nullable(),
  leaseTtlSeconds: PositiveSeconds(7 * DAY),
  failureThreshold: z.number().int().min(1).max(100),
  recoveryThreshold: z.number().int().min(1).max(100),
  channelIds: z.array(z.string().max(64)).max(50),
  paused: z.boolean(),
};

function checkRuntimeLimits(job: { minRuntimeSeconds?: number | null; maxRuntimeSeconds?: number | null }, ctx: z.RefinementCtx) {
  if (job.minRuntimeSeconds != null && job.maxRuntimeSeconds != null && job.minRuntimeSeconds >= job.maxRuntimeSeconds) {
    ctx.addIssue({ code: "custom", message: "must be less than maxRuntimeSeconds", path: ["minRuntimeSeconds"] });
  }
}

/** PUT /api/v1/jobs/{slug}: the whole job; omitted fields take their defaults. */
export const JobReplace = z
  .object({
    name: jobFields.name.optional(),
    tags: jobFields.tags.default([]),
    schedule: jobFields.schedule,
    graceSeconds: jobFields.graceSeconds.default(JOB_DEFAULTS.graceSeconds),
    minRuntimeSeconds: jobFields.minRuntimeSeconds.default(null),
    maxRuntimeSeconds: jobFields.maxRuntimeSeconds.default(null),
    leaseTtlSeconds: jobFields.leaseTtlSeconds.default(JOB_DEFAULTS.leaseTtlSeconds),
    failureThreshold: jobFields.failureThreshold.default(JOB_DEFAULTS.failureThreshold),
    recoveryThreshold: jobFields.recoveryThreshold.default(JOB_DEFAULTS.recoveryThreshold),
    channelIds: jobFields.channelIds.default([]),
    paused: jobFields.paused.default(false),
  })
  .strict()
  .superRefine(checkRuntimeLimits);
export type JobReplace = z.infer<typeof JobReplace>;

/** POST /api/v1/jobs: a new job, slug in the body. */
export const JobCreate = JobReplace.safeExtend({ slug: Slug });
export type JobCreate = z.infer<typeof JobCreate>;

/** PATCH /api/v1/jobs/{slug}: only the fields given change. */
export const JobPatch = z
  .object({
    name: jobFields.name,
    tags: jobFields.tags,
    schedule: jobFields.schedule,
    graceSeconds: jobFields.graceSeconds,
    minRuntimeSeconds: jobFields.minRuntimeSeconds,
    maxRuntimeSeconds: jobFields.maxRuntimeSeconds,
    leaseTtlSeconds: jobFields.leaseTtlSeconds,
    failureThreshold: jobFields.failureThreshold,
    recoveryThreshold: jobFields.recoveryThreshold,
    channelIds: jobFields.channelIds,
    paused: jobFields.paused,
  })
  .partial()
  .strict()
  .superRefine(checkRuntimeLimits);
export type JobPatch = z.infer<typeof JobPatch>;

export const ScheduleView = z.union([
  z.object({ cron: z.string(), tz: z.string() }),
  z.object({ every: z.number().int() }),
]);

export const JobView = z.object({
  slug: z.string(),
  name: z.string(),
  tags: z.array(z.string()),
  schedule: ScheduleView,
  graceSeconds: z.number().int(),
  minRuntimeSeconds: z.number().int().nullable(),
  maxRuntimeSeconds: z.number().int().nullable(),
  leaseTtlSeconds: z.number().int(),
  failureThreshold: z.number().int(),
  recoveryThreshold: z.number().int(),
  channelIds: z.array(z.string()),
  paused: z.boolean(),
  /** Only for read-write keys. */
  pingKey: z.string().optional(),
  pingUrl: z.string().optional(),
  leaseName: z.string(),
  nextSlotAt: z.string().nullable(),
  lastPingAt: z.string().nullable(),
  lastStartedAt: z.string().nullable(),
  lastFinishedAt: z.string().nullable(),
  lastOutcome: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type JobView = z.infer<typeof JobView>;

export const JobListQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  tag: z.string().max(40).optional(),
});
