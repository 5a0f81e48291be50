import { z } from "zod";
import { INCIDENT_KINDS } from "./alerts.ts";

export const IncidentListQuery = z.object({
  status: z.enum(["open", "resolved"]).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const IncidentView = z.object({
  id: z.string(),
  job: z.string(),
  kind: z.enum(INCIDENT_KINDS),
  status: z.enum(["open", "resolved"]),
  summary: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
});
export type IncidentView = z.infer<typeof IncidentView>;
