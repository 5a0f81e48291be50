import { z } from "zod";
import { IncidentCore } from "./alerts.ts";

export const IncidentListQuery = z.object({
  status: z.enum(["open", "resolved"]).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const IncidentView = IncidentCore.extend({ job: z.string() });
export type IncidentView = z.infer<typeof IncidentView>;
