import { z } from "zod";
import { DAY } from "./common.ts";

export const LeaseName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9:._-]*$/, "must be letters, digits, ':', '.', '_' or '-', starting with a letter or digit");

const Token = z.string().min(1).max(128);
export const Holder = z.string().trim().min(1).max(200);

export const LeaseAcquire = z
  .object({
    ttlSeconds: z.number().int().min(1).max(7 * DAY),
    holder: Holder.optional(),
    /** How long to wait for a held lease (0: refuse at once, like GET_LOCK(name, 0)). */
    waitSeconds: z.number().min(0).max(300).default(0),
    /** The lease stays unavailable this long after acquisition, even if released early. */
    minHoldSeconds: z.number().int().min(0).max(7 * DAY).default(0),
  })
  .strict();
export type LeaseAcquire = z.infer<typeof LeaseAcquire>;

export const LeaseRenew = z.object({ token: Token, ttlSeconds: z.number().int().min(1).max(7 * DAY).optional() }).strict();
export const LeaseRelease = z.object({ token: Token }).strict();
export const LeaseValidate = z.object({ fencingToken: z.number().int().min(0) }).strict();

export const LeaseAcquired = z.object({ acquired: z.literal(true), token: z.string(), fencingToken: z.number().int(), expiresAt: z.string(), holder: z.string().nullable() });
export const LeaseRefused = z.object({ acquired: z.literal(false), holder: z.string().nullable(), expiresAt: z.string() });

export const LEASE_EVENT_KINDS = ["acquired", "takeover", "refused", "renewed", "renew_refused", "released", "release_refused", "expired"] as const;
export type LeaseEventKind = (typeof LEASE_EVENT_KINDS)[number];

export const LeaseEventView = z.object({
  id: z.string(),
  kind: z.enum(LEASE_EVENT_KINDS),
  holder: z.string().nullable(),
  fencingToken: z.number().int().nullable(),
  runId: z.string().nullable(),
  detail: z.string().nullable(),
  at: z.string(),
});

export const LeaseView = z.object({
  name: z.string(),
  /** "held" while a holder's TTL runs; "free" otherwise (released, expired or never taken). */
  state: z.enum(["held", "free"]),
  holder: z.string().nullable(),
  fencingToken: z.number().int(),
  ttlSeconds: z.number().int().nullable(),
  acquiredAt: z.string().nullable(),
  renewedAt: z.string().nullable(),
  expiresAt: z.string(),
  /** Set when a released lease is still kept by minHoldSeconds. */
  minHoldUntil: z.string().nullable(),
});
export const LeaseDetail = LeaseView.extend({ events: z.array(LeaseEventView) });
