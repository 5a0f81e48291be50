import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";
import type { JobRow } from "./job-view.ts";

const withChannels = { channels: { select: { channelId: true } } } as const;

export async function getJobOrThrow(db: Database, slug: string): Promise<JobRow> {
  const job = await db.prisma.job.findUnique({ where: { slug }, include: withChannels });
  if (!job) throw new AppError("not_found", `no job '${slug}'`);
  return job;
}

/** Jobs by slug, keyset-paged: the cursor is the last slug of the previous page. */
export async function listJobs(db: Database, q: { cursor?: string; limit: number; tag?: string }): Promise<{ items: JobRow[]; nextCursor: string | null }> {
  const rows = await db.prisma.job.findMany({
    where: {
      ...(q.cursor ? { slug: { gt: q.cursor } } : {}),
      // Tags are stored as a JSON array of strings without quotes inside (the contract forbids them).
      ...(q.tag ? { tags: { contains: JSON.stringify(q.tag) } } : {}),
    },
    orderBy: { slug: "asc" },
    take: q.limit + 1,
    include: withChannels,
  });
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].slug : null };
}

export async function countJobs(db: Database): Promise<number> {
  return db.prisma.job.count();
}
