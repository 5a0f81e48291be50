import { z } from "zod";

export const Slug = z
  .string()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");

export const Seconds = (max: number) => z.number().int("must be a whole number of seconds").min(0).max(max);
export const PositiveSeconds = (max: number) => z.number().int("must be a whole number of seconds").min(1).max(max);

export const Limit = z.coerce.number().int().min(1).max(500).default(100);

export const ListQuery = z.object({ cursor: z.string().max(200).optional(), limit: Limit });

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

export const DAY = 86_400;
