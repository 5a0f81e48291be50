import { AppError } from "../contracts/errors.ts";
import { firstDeadline } from "../domain/incidents.ts";
import { nowOf, type Database } from "./db.ts";
import { scheduleOf } from "./job-view.ts";
import type { JobRow } from "./job-view.ts";

/** Pause or resume. A paused job raises nothing; resuming starts its schedule afresh from now. */
export async function setJobPaused(db: Database, slug: string, paused: boolean, now = nowOf(db)): Promise<JobRow> {
  const job = await db.prisma.job.findUnique({ where: { slug } });
  if (!job) throw new AppError("not_found", `no job '${slug}'`);
  const checkAt = paused ? null : firstDeadline(scheduleOf(job), now, job.graceSeconds);
  await db.prisma.job.update({ where: { id: job.id }, data: { paused, updatedAt: now, checkAt } });
  return db.prisma.job.findUniqueOrThrow({ where: { slug }, include: { channels: { select: { channelId: true } } } });
}
