import { z } from "zod";

export const ApiKeyScope = z.enum(["read", "write"]);
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

export const ApiKeyCreate = z.object({ name: z.string().trim().min(1).max(100), scope: ApiKeyScope.default("write") }).strict();
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;
