// Views of the channels API. The input contract (ChannelCreate) and the message (AlertMessage)
// are in ./alerts.ts.
import { z } from "zod";
import { NOTIFICATION_EVENTS } from "./alerts.ts";

export const ChannelView = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["email", "webhook"]),
  /** Email channels: the recipient. */
  address: z.string().optional(),
  /** Webhook channels: the URL; a read-only key sees only its origin (a Slack URL is itself a credential). */
  url: z.string().optional(),
  format: z.enum(["json", "slack"]).optional(),
  /** Webhook channels: requests carry X-Deadbolt-Signature. The secret is shown once, when the channel is created. */
  signed: z.boolean().optional(),
  remindEveryMinutes: z.number().int().nullable(),
  createdAt: z.string(),
});
export type ChannelView = z.infer<typeof ChannelView>;

/** POST /api/v1/channels: the view, plus a webhook's signing secret — the only time it is shown. */
export const ChannelCreated = ChannelView.extend({ secret: z.string().optional() });
export type ChannelCreated = z.infer<typeof ChannelCreated>;

/** POST /api/v1/channels/{id}/test: answered 200 whether or not the delivery worked. */
export const ChannelTestResult = z.object({
  ok: z.boolean(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  notificationId: z.string(),
  attemptId: z.string(),
});
export type ChannelTestResult = z.infer<typeof ChannelTestResult>;

export const DeliveryView = z.object({
  id: z.string(),
  notificationId: z.string(),
  incidentId: z.string().nullable(),
  event: z.enum(NOTIFICATION_EVENTS),
  title: z.string(),
  /** The notification's state now: "pending" (a retry is due), "sent" or "failed" (given up). */
  notificationStatus: z.enum(["pending", "sent", "failed"]),
  ok: z.boolean(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  at: z.string(),
});
export type DeliveryView = z.infer<typeof DeliveryView>;
