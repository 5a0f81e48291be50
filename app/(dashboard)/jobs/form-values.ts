// Form values for a new job (the API's defaults) and for an existing one.
import type { JobFormValues } from "@/components/job-form";
import { JOB_DEFAULTS } from "@/lib/contracts/jobs";

export const NEW_JOB_VALUES: JobFormValues = {
  slug: "",
  name: "",
  tags: "",
  scheduleKind: "cron",
  cron: "*/5 * * * *",
  tz: "UTC",
  everyValue: "5",
  everyUnit: "minutes",
  graceSeconds: String(JOB_DEFAULTS.graceSeconds),
  minRuntimeSeconds: "",
  maxRuntimeSeconds: "",
  leaseTtlSeconds: String(JOB_DEFAULTS.leaseTtlSeconds),
  failureThreshold: String(JOB_DEFAULTS.failureThreshold),
  recoveryThreshold: String(JOB_DEFAULTS.recoveryThreshold),
  channelIds: [],
};

function everyParts(seconds: number): Pick<JobFormValues, "everyValue" | "everyUnit"> {
  for (const [unit, size] of [["days", 86_400], ["hours", 3600], ["minutes", 60]] as const) {
    if (seconds % size === 0) return { everyValue: String(seconds / size), everyUnit: unit };
  }
  return { everyValue: String(seconds), everyUnit: "seconds" };
}

export function valuesOf(job: {
  slug: string; name: string; tags: string; scheduleKind: string; cronExpr: string | null; timezone: string; everySeconds: number | null;
  graceSeconds: number; minRuntimeSeconds: number | null; maxRuntimeSeconds: number | null; leaseTtlSeconds: number; failureThreshold: number;
  recoveryThreshold: number; channels: { channelId: string }[];
}): JobFormValues {
  const every = job.scheduleKind === "every" && job.everySeconds ? everyParts(job.everySeconds) : { everyValue: "5", everyUnit: "minutes" as const };
  return {
    slug: job.slug,
    name: job.name,
    tags: (JSON.parse(job.tags) as string[]).join(" "),
    scheduleKind: job.scheduleKind === "every" ? "every" : "cron",
    cron: job.cronExpr ?? "*/5 * * * *",
    tz: job.timezone,
    ...every,
    graceSeconds: String(job.graceSeconds),
    minRuntimeSeconds: job.minRuntimeSeconds === null ? "" : String(job.minRuntimeSeconds),
    maxRuntimeSeconds: job.maxRuntimeSeconds === null ? "" : String(job.maxRuntimeSeconds),
    leaseTtlSeconds: String(job.leaseTtlSeconds),
    failureThreshold: String(job.failureThreshold),
    recoveryThreshold: String(job.recoveryThreshold),
    channelIds: job.channels.map((c) => c.channelId),
  };
}

/** IANA zones for the picker, UTC first. */
export function timeZones(): string[] {
  const zones = Intl.supportedValuesOf("timeZone");
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}
