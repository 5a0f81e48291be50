import { z } from "zod";
import { DAY } from "./common.ts";
import { Holder } from "./leases.ts";
import { RUN_OUTCOMES } from "../domain/runs.ts";

export const RunClaim = z
  .object({
    holder: Holder.optional(),
    /** The lease TTL for this run (default: the job's leaseTtlSeconds). */
    ttlSeconds: z.number().int().min(1).max(7 * DAY).optional(),
    /** Claim this slot instead of the one the server computes (ISO 8601 instant). */
    slot: z.iso.datetime({ offset: true }).optional(),
    /** Your id for this claim (e.g. a UUID), the same on every retry: a claim that was recorded but
     * whose answer was lost is answered again instead of being refused by itself. */
    requestId: z.string().min(8).max(64).regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-'").optional(),
  })
  .strict();
export type RunClaim = z.infer<typeof RunClaim>;

export const RunHeartbeat = z.object({ ttlSeconds: z.number().int().min(1).max(7 * DAY).optional() }).strict();

export const RunFinish = z
  .object({
    exitCode: z.number().int().min(-1024).max(1024),
    /** Output of the run; only the last 100 KB is kept. */
    output: z.string().max(8 * 1024 * 1024).optional(),
  })
  .strict();
export type RunFinish = z.infer<typeof RunFinish>;

export const RunClaimed = z.object({
  runId: z.string(),
  leaseName: z.string(),
  token: z.string(),
  fencingToken: z.number().int(),
  slot: z.string(),
  idempotencyKey: z.string(),
  expiresAt: z.string(),
  /** The lease TTL of this run: heartbeat well within it. */
  ttlSeconds: z.number().int(),
});

export const RunView = z.object({
  id: z.string(),
  job: z.string(),
  slot: z.string().nullable(),
  source: z.enum(["claim", "ping"]),
  outcome: z.enum(RUN_OUTCOMES),
  holder: z.string().nullable(),
  host: z.string().nullable(),
  rid: z.string().nullable(),
  fencingToken: z.number().int().nullable(),
  idempotencyKey: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  leaseExpiresAt: z.string().nullable(),
  leaseLostAt: z.string().nullable(),
});
export type RunView = z.infer<typeof RunView>;

export const RunPingView = z.object({
  id: z.string(),
  kind: z.string(),
  exitCode: z.number().int().nullable(),
  method: z.string(),
  sourceIp: z.string().nullable(),
  userAgent: z.string().nullable(),
  bodyBytes: z.number().int(),
  receivedAt: z.string(),
});

export const RunDetail = RunView.extend({
  output: z.string().nullable(),
  pings: z.array(RunPingView),
  leaseEvents: z.array(z.object({ id: z.string(), kind: z.string(), holder: z.string().nullable(), fencingToken: z.number().int().nullable(), at: z.string(), detail: z.string().nullable() })),
});
