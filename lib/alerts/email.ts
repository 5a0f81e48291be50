// Email channel: one plain-text message through the SMTP server of SMTP_URL
// (smtp://user:pass@host:587 upgrades with STARTTLS when offered; smtps://…:465 is TLS from the start).
import { createTransport, type Transporter } from "nodemailer";
import type { AlertMessage } from "../contracts/alerts.ts";
import type { ChannelSender, ChannelTarget, DeliveryContext, DeliveryResult } from "./channel.ts";

// One transporter per (URL, timeout), kept for the life of the process. Not pooled: alerts are
// rare, and an idle pooled connection would only be dropped by the server in between.
const transporters = new Map<string, Transporter>();
const MAX_TRANSPORTERS = 8;

function transporterFor(smtpUrl: string, timeoutMs: number): Transporter {
  const key = `${timeoutMs} ${smtpUrl}`;
  let transporter = transporters.get(key);
  if (!transporter) {
    if (transporters.size >= MAX_TRANSPORTERS) {
      const [oldestKey, oldest] = transporters.entries().next().value!;
      oldest.close();
      transporters.delete(oldestKey);
    }
    transporter = createTransport({ url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    transporters.set(key, transporter);
  }
  return transporter;
}

export function emailBody(message: AlertMessage): string {
  return `${message.text}\n\n${message.url}\n`;
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  message?: string;
}

function failure(error: SmtpError, durationMs: number): DeliveryResult {
  if (error.code === "ETIMEDOUT") return { ok: false, error: "timeout", durationMs };
  const text = (error.message ?? String(error)).replace(/\s+/g, " ").trim().slice(0, 200);
  return { ok: false, ...(error.responseCode ? { responseStatus: error.responseCode } : {}), error: text || "SMTP error", durationMs };
}

export const emailSender: ChannelSender = {
  kind: "email",
  async send(channel: ChannelTarget, message: AlertMessage, ctx: DeliveryContext): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (!ctx.smtpUrl) return { ok: false, error: "SMTP_URL is not set", durationMs: 0 };
    let timer: NodeJS.Timeout | undefined;
    try {
      const transporter = transporterFor(ctx.smtpUrl, ctx.timeoutMs);
      const sending = transporter.sendMail({
        from: ctx.alertFrom,
        to: channel.target,
        subject: message.title,
        text: emailBody(message),
        headers: { "X-Deadbolt-Event": message.event, ...(ctx.notificationId ? { "X-Deadbolt-Notification": ctx.notificationId } : {}) },
      });
      // nodemailer's timeouts are per phase (connect, greeting, idle socket); this bounds the whole.
      const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ctx.timeoutMs * 2)));
      sending.catch(() => {}); // settled later than the deadline: nobody is listening any more
      const info = await Promise.race([sending, deadline]);
      if (info === "timeout") return { ok: false, error: "timeout", durationMs: elapsed() };
      const code = /^(\d{3})\b/.exec(String((info as { response?: string }).response ?? ""));
      return { ok: true, ...(code ? { responseStatus: Number(code[1]) } : {}), durationMs: elapsed() };
    } catch (error) {
      return failure(error as SmtpError, elapsed());
    } finally {
      clearTimeout(timer);
    }
  },
};
