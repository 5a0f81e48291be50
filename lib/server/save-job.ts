// Create, replace (PUT upsert: jobs as code) and patch a job. One file: all three write the same
// columns from the same contract fields, and must check channel ids the same way.
import { AppError } from "../contracts/errors.ts";
import type { JobCreate, JobPatch, JobReplace, ScheduleInput } from "../contracts/jobs.ts";
import { firstDeadline } from "../domain/incidents.ts";
import { nowOf, type Database } from "./db.ts";
import { scheduleOf } from "./job-view.ts";
import { newId, newSecret } from "./ids.ts";
import type { JobRow } from "./job-view.ts";

const withChannels = { channels: { select: { channelId: true } } } as const;

function scheduleColumns(s: ScheduleInput) {
  return s.cron !== undefined
    ? { scheduleKind: "cron", cronExpr: s.cron.trim(), timezone: s.tz ?? "UTC", everySeconds: null }
    : { scheduleKind: "every", cronExpr: null, timezone: "UTC", everySeconds: s.every! };
}

function columns<T extends JobPatch>(input: T) {
  const { schedule, tags, channelIds: _channelIds, ...rest } = input;
  return {
    ...rest,
    ...(schedule ? scheduleColumns(schedule) : {}),
    ...(tags ? { tags: JSON.stringify([...new Set(tags)]) } : {}),
  };
}

async function checkChannels(db: Database, channelIds: string[] | undefined) {
  if (!channelIds?.length) return;
  const found = await db.prisma.channel.count({ where: { id: { in: channelIds } } });
  if (found !== new Set(channelIds).size) throw new AppError("validation_failed", "unknown channel id", "channelIds");
}

const channelLinks = (channelIds: string[]) => ({ create: [...new Set(channelIds)].map((channelId) => ({ channelId })) });

export async function createJob(db: Database, input: JobCreate, now = nowOf(db)): Promise<JobRow> {
  await checkChannels(db, input.channelIds);
  try {
    return await db.prisma.job.create({
      data: {
        id: newId(),
        ...columns(input),
        ...scheduleColumns(input.schedule),
        name: input.name ?? input.slug,
        pingKey: newSecret(16),
        checkAt: input.paused ? null : firstDeadline(scheduleOf(scheduleColumns(input.schedule)), now, input.graceSeconds),
        createdAt: now,
        updatedAt: now,
        channels: channelLinks(input.channelIds),
      },
      include: withChannels,
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new AppError("conflict", `a job with slug '${input.slug}' already exists`, "slug");
    throw error;
  }
}

/** PUT: replaces the job's configuration, or creates it. The ping key and history survive a replace. */
export async function replaceJob(db: Database, slug: string, input: JobReplace, now = nowOf(db)): Promise<{ job: JobRow; created: boolean }> {
  await checkChannels(db, input.channelIds);
  const data = { ...columns(input), name: input.name ?? slug, minRuntimeSeconds: input.minRuntimeSeconds, maxRuntimeSeconds: input.maxRuntimeSeconds, updatedAt: now };
  for (let attempt = 0; ; attempt++) {
    const existing = await db.prisma.job.findUnique({ where: { slug }, select: { id: true } });
    if (existing) {
      const job = await db.prisma.job.update({
        where: { id: existing.id },
        // A replaced schedule starts afresh: the next fire time from now is the first one watched.
        data: { ...data, checkAt: input.paused ? null : firstDeadline(scheduleOf(scheduleColumns(input.schedule)), now, input.graceSeconds), channels: { deleteMany: {}, ...channelLinks(input.channelIds) } },
        include: withChannels,
      });
      return { job, created: false };
    }
    try {
      return { job: await createJob(db, { ...input, slug }, now), created: true };
    } catch (error) {
      // Two PUTs of a new slug at once: the loser updates what the winner created.
      if (error instanceof AppError && error.code === "conflict" && attempt === 0) continue;
      throw error;
    }
  }
}

export async function patchJob(db: Database, slug: string, input: JobPatch, now = nowOf(db)): Promise<JobRow> {
  await checkChannels(db, input.channelIds);
  const current = await db.prisma.job.findUnique({ where: { slug } });
  if (!current) throw new AppError("not_found", `no job '${slug}'`);
  const next = { min: input.minRuntimeSeconds !== undefined ? input.minRuntimeSeconds : current.minRuntimeSeconds, max: input.maxRuntimeSeconds !== undefined ? input.maxRuntimeSeconds : current.maxRuntimeSeconds };
  if (next.min != null && next.max != null && next.min >= next.max) {
    throw new AppError("validation_failed", "must be less than maxRuntimeSeconds", "minRuntimeSeconds");
  }
  const watchAfresh = input.schedule !== undefined || input.graceSeconds !== undefined || input.paused !== undefined;
  const paused = input.paused ?? current.paused;
  const schedule = input.schedule ? scheduleOf(scheduleColumns(input.schedule)) : scheduleOf(current);
  return db.prisma.job.update({
    where: { id: current.id },
    data: {
      ...columns(input),
      ...(watchAfresh ? { checkAt: paused ? null : firstDeadline(schedule, now, input.graceSeconds ?? current.graceSeconds) } : {}),
      updatedAt: now,
      ...(input.channelIds ? { channels: { deleteMany: {}, ...channelLinks(input.channelIds) } } : {}),
    },
    include: withChannels,
  });
}
