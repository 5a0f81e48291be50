// Webhook channel: one HTTP POST of JSON per notification.
//
// Format "json" posts the AlertMessage as it is (lib/contracts/alerts.ts); format "slack" posts
// {"text": "<title>\n<text>\n<url>"} for Slack-compatible incoming webhooks.
//
// Headers:
//   Content-Type: application/json
//   User-Agent: Deadbolt
//   X-Deadbolt-Event: opened | resolved | reminder | test
//   X-Deadbolt-Timestamp: <unix seconds when the request was signed>
//   X-Deadbolt-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the channel's secret>
//   X-Deadbolt-Notification: <notification id> (the same on every retry of one notification)
//
// To verify, a receiver recomputes the HMAC over the exact bytes it received (before any JSON
// parsing), compares it in constant time, and refuses timestamps more than a few minutes from its
// own clock (a replayed request keeps its old timestamp, and changing it breaks the signature).
// Delivery is at least once: drop repeats of an X-Deadbolt-Notification already handled.
import { createHmac } from "node:crypto";
import type { AlertMessage } from "../contracts/alerts.ts";
import type { ChannelSender, ChannelTarget, DeliveryContext, DeliveryResult } from "./channel.ts";

export function webhookBody(channel: Pick<ChannelTarget, "format">, message: AlertMessage): string {
  if (channel.format === "slack") return JSON.stringify({ text: `${message.title}\n${message.text}\n${message.url}` });
  return JSON.stringify(message);
}

export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** fetch's failures, named by their cause ("ECONNREFUSED") rather than "fetch failed". */
function networkError(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "timeout";
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === "UND_ERR_CONNECT_TIMEOUT" || cause?.code === "UND_ERR_HEADERS_TIMEOUT") return "timeout";
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `request failed: ${reason}`.replace(/\s+/g, " ").slice(0, 200);
}

export const webhookSender: ChannelSender = {
  kind: "webhook",
  async send(channel: ChannelTarget, message: AlertMessage, ctx: DeliveryContext): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const body = webhookBody(channel, message);
      const timestamp = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "User-Agent": "Deadbolt",
        "X-Deadbolt-Event": message.event,
        "X-Deadbolt-Timestamp": String(timestamp),
      };
      if (channel.secret) headers["X-Deadbolt-Signature"] = webhookSignature(channel.secret, timestamp, body);
      if (ctx.notificationId) headers["X-Deadbolt-Notification"] = ctx.notificationId;
      const response = await fetch(channel.target, {
        method: "POST",
        headers,
        body,
        // A redirect would turn the POST into a GET elsewhere: report it instead of following it.
        redirect: "manual",
        signal: AbortSignal.timeout(ctx.timeoutMs),
      });
      // The answer's body is not needed; dropping it frees the connection.
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) return { ok: true, responseStatus: response.status, durationMs: elapsed() };
      return { ok: false, responseStatus: response.status, error: `HTTP ${response.status}`, durationMs: elapsed() };
    } catch (error) {
      return { ok: false, error: networkError(error), durationMs: elapsed() };
    }
  },
};
