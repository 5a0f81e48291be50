// The channel contract: one small sender per kind, looked up in a registry keyed by kind (the good
// part of uptime-kuma's notification providers). Senders are pure: they get the channel and the
// message and answer with a result; they never touch the database and never throw, so a broken
// channel cannot crash the checker — lib/server records every result as a DeliveryAttempt.
// The senders import only types from here, so there is no import cycle to trip over.
import type { AlertMessage } from "../contracts/alerts.ts";
import { emailSender } from "./email.ts";
import { webhookSender } from "./webhook.ts";

export const CHANNEL_KINDS = ["email", "webhook"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A channel as a sender sees it (the Channel row, minus what only the database needs). */
export interface ChannelTarget {
  id: string;
  name: string;
  kind: ChannelKind;
  /** Email address, or webhook URL. */
  target: string;
  /** Webhook signing secret; null sends unsigned. */
  secret: string | null;
  format: WebhookFormat;
}

export interface DeliveryContext {
  /** smtp://user:pass@host:587 (smtps:// for implicit TLS); email fails without it. */
  smtpUrl?: string;
  alertFrom: string;
  timeoutMs: number;
  /** The Notification's id: sent as X-Deadbolt-Notification so receivers can drop the duplicates
   * that at-least-once delivery may produce. */
  notificationId?: string;
}

export interface DeliveryResult {
  ok: boolean;
  /** HTTP status of a webhook, or the SMTP reply code of an email, when there was one. */
  responseStatus?: number;
  /** A short, human-readable reason when ok is false ("timeout", "HTTP 500", "SMTP_URL is not set"). */
  error?: string;
  durationMs: number;
}

export interface ChannelSender {
  kind: ChannelKind;
  send(channel: ChannelTarget, message: AlertMessage, ctx: DeliveryContext): Promise<DeliveryResult>;
}

const SENDERS: Record<ChannelKind, ChannelSender> = {
  email: emailSender,
  webhook: webhookSender,
};

export function senderFor(kind: string): ChannelSender | undefined {
  return Object.hasOwn(SENDERS, kind) ? SENDERS[kind as ChannelKind] : undefined;
}

/** Sends through the registry. Holds the "never throws" promise even for an unknown kind or a
 * sender that breaks it. */
export async function sendAlert(channel: ChannelTarget, message: AlertMessage, ctx: DeliveryContext): Promise<DeliveryResult> {
  const started = performance.now();
  const sender = senderFor(channel.kind);
  if (!sender) return { ok: false, error: `unknown channel kind '${channel.kind}'`, durationMs: 0 };
  try {
    return await sender.send(channel, message, ctx);
  } catch (error) {
    return { ok: false, error: String(error instanceof Error ? error.message : error).slice(0, 200), durationMs: Math.round(performance.now() - started) };
  }
}
