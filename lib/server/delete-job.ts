import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";

/** Deletes a job with its runs, pings and incidents (cascade). Its lease row stays: a job created
 * again under the same slug must never be handed a fencing token that was issued before. */
export async function deleteJob(db: Database, slug: string): Promise<void> {
  const { count } = await db.prisma.job.deleteMany({ where: { slug } });
  if (count === 0) throw new AppError("not_found", `no job '${slug}'`);
}
