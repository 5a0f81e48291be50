import { z } from "zod";

export const HealthView = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.object({ dialect: z.enum(["sqlite", "postgresql"]), reachable: z.boolean(), latencyMs: z.number() }),
  version: z.string(),
});
export type HealthView = z.infer<typeof HealthView>;
