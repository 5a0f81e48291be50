import { z } from "zod";

export const INCIDENT_KINDS = ["missed", "failed", "overrun", "too_fast", "lease_expired_mid_run", "abandoned", "ttl_risk", "duplicate", "zombie"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

export const NOTIFICATION_EVENTS = ["opened", "resolved", "reminder", "test"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** An incident as alerts and the API show it. */
export const IncidentCore = z.object({
  id: z.string(),
  kind: z.enum(INCIDENT_KINDS),
  status: z.enum(["open", "resolved"]),
  summary: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

/** What a channel is asked to deliver: stored as Notification.payload (JSON) when the incident
 * opens or resolves, so a delivery retried later says what was true then. */
export const AlertMessage = z.object({
  event: z.enum(NOTIFICATION_EVENTS),
  /** One line for a subject / Slack text: "[Deadbolt] billing-charge: missed run (slot 02:00 UTC)". */
  title: z.string(),
  /** A few lines of plain text with the evidence. */
  text: z.string(),
  incident: IncidentCore.nullable(),
  job: z.object({ slug: z.string(), name: z.string() }).nullable(),
  /** Link to the job (or incident) in the dashboard. */
  url: z.string(),
  at: z.string(),
});
export type AlertMessage = z.infer<typeof AlertMessage>;

export const ChannelCreate = z.discriminatedUnion("kind", [
  z.object({ name: z.string().trim().min(1).max(100), kind: z.literal("email"), address: z.email(), remindEveryMinutes: z.number().int().min(5).max(10080).nullable().optional() }).strict(),
  z
    .object({
      name: z.string().trim().min(1).max(100),
      kind: z.literal("webhook"),
      url: z.url({ protocol: /^https?$/ }),
      /** HMAC-SHA256 signing secret; one is generated when omitted. */
      secret: z.string().min(16).max(200).optional(),
      /** "slack" posts {text} for Slack-compatible incoming webhooks. */
      format: z.enum(["json", "slack"]).default("json"),
      remindEveryMinutes: z.number().int().min(5).max(10080).nullable().optional(),
    })
    .strict(),
]);
export type ChannelCreate = z.infer<typeof ChannelCreate>;
