import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";
import type { JobRow } from "./job-view.ts";

/** Pause or resume. A paused job raises nothing; resuming starts its schedule afresh from now. */
export async function setJobPaused(db: Database, slug: string, paused: boolean, now = new Date()): Promise<JobRow> {
  const { count } = await db.prisma.job.updateMany({ where: { slug }, data: { paused, updatedAt: now, checkAt: null } });
  if (count === 0) throw new AppError("not_found", `no job '${slug}'`);
  return db.prisma.job.findUniqueOrThrow({ where: { slug }, include: { channels: { select: { channelId: true } } } });
}
