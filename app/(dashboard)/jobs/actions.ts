"use server";
// Job actions of the dashboard: parse the form → check it with the API's own contract → call the
// use case. Every action checks the session itself.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { JobCreate, JobReplace, type JobPatch } from "@/lib/contracts/jobs";
import { getDatabase } from "@/lib/server/db";
import { deleteJob } from "@/lib/server/delete-job";
import { readRunOutput } from "@/lib/server/dashboard/job-page";
import { createJob, patchJob } from "@/lib/server/save-job";
import { setJobPaused } from "@/lib/server/set-job-paused";
import { requireUser } from "../../_lib/auth";
import { appErrorState, text, zodFields, type FormState } from "../../_lib/forms";

const UNIT_SECONDS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** The form as the API's job body. Number fields that are not whole numbers are errors here
 * (zod would only say "expected number"). */
function jobInput(form: FormData, fields: Record<string, string>) {
  const int = (name: string, errorKey = name): number | undefined => {
    const raw = text(form, name);
    if (raw === "") return undefined;
    if (!/^\d+$/.test(raw)) {
      fields[errorKey] = "must be a whole number";
      return undefined;
    }
    return Number(raw);
  };
  const optional = (name: string) => (text(form, name) === "" ? null : int(name));
  let schedule: { cron: string; tz: string } | { every: number };
  if (text(form, "scheduleKind") === "every") {
    const n = int("everyValue", "schedule.every");
    if (n === undefined && !fields["schedule.every"]) fields["schedule.every"] = "required";
    schedule = { every: (n ?? 0) * (UNIT_SECONDS[text(form, "everyUnit")] ?? 1) };
  } else {
    schedule = { cron: text(form, "cron"), tz: text(form, "tz") || "UTC" };
  }
  return {
    name: text(form, "name") || undefined,
    tags: text(form, "tags").split(/[\s,]+/).filter(Boolean),
    schedule,
    graceSeconds: int("graceSeconds"),
    minRuntimeSeconds: optional("minRuntimeSeconds"),
    maxRuntimeSeconds: optional("maxRuntimeSeconds"),
    leaseTtlSeconds: int("leaseTtlSeconds"),
    failureThreshold: int("failureThreshold"),
    recoveryThreshold: int("recoveryThreshold"),
    channelIds: form.getAll("channelIds").map(String),
  };
}

const invalid = (fields: Record<string, string>): FormState => ({ error: "Please fix the marked fields.", fields });

export async function createJobAction(_state: FormState, form: FormData): Promise<FormState> {
  await requireUser();
  const fields: Record<string, string> = {};
  const parsed = JobCreate.safeParse({ ...jobInput(form, fields), slug: text(form, "slug") });
  if (!parsed.success) Object.assign(fields, { ...zodFields(parsed.error), ...fields });
  if (!parsed.success || Object.keys(fields).length) return invalid(fields);
  try {
    await createJob(getDatabase(), parsed.data);
  } catch (error) {
    return appErrorState(error);
  }
  redirect(`/jobs/${parsed.data.slug}`);
}

export async function updateJobAction(slug: string, _state: FormState, form: FormData): Promise<FormState> {
  await requireUser();
  const fields: Record<string, string> = {};
  const parsed = JobReplace.safeParse(jobInput(form, fields));
  if (!parsed.success) Object.assign(fields, { ...zodFields(parsed.error), ...fields });
  if (!parsed.success || Object.keys(fields).length) return invalid(fields);
  const db = getDatabase();
  const current = await db.prisma.job.findUnique({ where: { slug } });
  if (!current) return { error: `Job '${slug}' no longer exists.` };
  const { schedule, graceSeconds, paused: _paused, ...rest } = parsed.data;
  // Schedule and grace restart the watch from now (patchJob): send them only when they changed,
  // so renaming a late job does not hide that it is late.
  const sameSchedule = "cron" in schedule && schedule.cron !== undefined
    ? current.scheduleKind === "cron" && current.cronExpr === schedule.cron.trim() && current.timezone === (schedule.tz ?? "UTC")
    : current.scheduleKind === "every" && current.everySeconds === schedule.every;
  const patch: JobPatch = { ...rest, name: rest.name ?? slug, ...(sameSchedule ? {} : { schedule }), ...(graceSeconds === current.graceSeconds ? {} : { graceSeconds }) };
  try {
    await patchJob(db, slug, patch);
  } catch (error) {
    return appErrorState(error);
  }
  revalidatePath(`/jobs/${slug}`);
  redirect(`/jobs/${slug}`);
}

export async function setPausedAction(form: FormData): Promise<void> {
  await requireUser();
  const slug = text(form, "slug");
  await setJobPaused(getDatabase(), slug, text(form, "paused") === "true");
  revalidatePath(`/jobs/${slug}`);
}

export async function deleteJobAction(form: FormData): Promise<void> {
  await requireUser();
  const slug = text(form, "slug");
  await deleteJob(getDatabase(), slug);
  redirect(`/?deleted=${encodeURIComponent(slug)}`);
}

/** A run's output tail, loaded when its row is expanded. */
export async function runOutputAction(runId: string): Promise<string | null> {
  await requireUser();
  return readRunOutput(getDatabase(), runId);
}
