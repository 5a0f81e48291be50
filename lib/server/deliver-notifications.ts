// Drains the alert outbox: Notification rows that are pending and due are claimed, sent through
// their channel, and either marked sent or pushed back with a growing delay. Every attempt is a
// DeliveryAttempt row. Safe to run from several checker processes at once: a row is sent only by
// the process whose conditional update claimed it.
import { AlertMessage } from "../contracts/alerts.ts";
import { sendAlert, senderFor, type ChannelKind, type ChannelTarget, type DeliveryResult } from "../alerts/channel.ts";
import type { Database } from "./db.ts";
import { newId } from "./ids.ts";

/** Wait after the Nth failed attempt (index N-1) before the next one: 30 s, 2 min, 10 min, 30 min,
 * 1 h, 2 h, 4 h — about 7.7 hours from the first attempt to the eighth and last. */
export const RETRY_BACKOFF_SECONDS = [30, 120, 600, 1800, 3600, 7200, 14400] as const;
export const MAX_ATTEMPTS = RETRY_BACKOFF_SECONDS.length + 1;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** How long a claim holds a row. A process that dies mid-send leaves the row due again after it. */
export const CLAIM_SECONDS = 120;
/** Sends in flight at once per call: one slow endpoint does not hold up the others. */
const CONCURRENCY = 4;

/** When to try again after `attemptsMade` failed attempts; null when it is time to give up. */
export function nextAttemptAfter(attemptsMade: number, failedAt: Date): Date | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const seconds = RETRY_BACKOFF_SECONDS[Math.max(1, attemptsMade) - 1];
  return new Date(failedAt.getTime() + seconds * 1000);
}

export interface DeliveryOptions {
  smtpUrl?: string;
  alertFrom: string;
  timeoutMs?: number;
  /** Where to report a notification that could not be processed (database error); default: console. */
  onError?: (notificationId: string, error: unknown) => void;
}

export interface DeliveryTally {
  sent: number;
  /** Given up: the last attempt failed, or the notification can never be sent. */
  failed: number;
  /** Failed, with a retry scheduled. */
  retried: number;
}

export interface ChannelRow {
  id: string;
  name: string;
  kind: string;
  target: string;
  secret: string | null;
  format: string;
}

export function toChannelTarget(row: ChannelRow): ChannelTarget {
  return { id: row.id, name: row.name, kind: row.kind as ChannelKind, target: row.target, secret: row.secret, format: row.format === "slack" ? "slack" : "json" };
}

/** Parses a stored payload and sends it. `permanent` marks failures that no retry can fix. */
export async function sendPayload(channel: ChannelRow, payload: string, options: DeliveryOptions, notificationId: string): Promise<DeliveryResult & { permanent?: boolean }> {
  if (!senderFor(channel.kind)) return { ok: false, error: `unknown channel kind '${channel.kind}'`, durationMs: 0, permanent: true };
  let message: AlertMessage;
  try {
    message = AlertMessage.parse(JSON.parse(payload));
  } catch {
    return { ok: false, error: "payload is not a valid AlertMessage", durationMs: 0, permanent: true };
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  return sendAlert(toChannelTarget(channel), message, { smtpUrl: options.smtpUrl, alertFrom: options.alertFrom, timeoutMs, notificationId });
}

export async function deliverDueNotifications(db: Database, options: DeliveryOptions, now = new Date(), limit = 50): Promise<DeliveryTally> {
  // The caller's `now` is the tick's reading of the server clock; it moves on by the time spent
  // sending, so a claim made late in a slow batch still lasts CLAIM_SECONDS from when it was made.
  const startedMs = performance.now();
  const clock = () => new Date(now.getTime() + Math.round(performance.now() - startedMs));
  const claimMs = Math.max(CLAIM_SECONDS * 1000, 3 * (options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS));
  const onError = options.onError ?? ((id, error) => console.error(`deadbolt: notification ${id} could not be processed`, error));

  const due = await db.prisma.notification.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: "asc" },
    take: limit,
    select: { id: true, attempts: true, payload: true, channel: { select: { id: true, name: true, kind: true, target: true, secret: true, format: true } } },
  });

  const tally: DeliveryTally = { sent: 0, failed: 0, retried: 0 };
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const row = due[next++];
      try {
        const outcome = await deliverOne(db, row, options, clock, claimMs);
        if (outcome) tally[outcome]++;
      } catch (error) {
        // A row that breaks (its channel deleted mid-send, a database hiccup) must not stop the
        // rest; its claim runs out and it is tried again later.
        onError(row.id, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  return tally;
}

async function deliverOne(
  db: Database,
  row: { id: string; attempts: number; payload: string; channel: ChannelRow },
  options: DeliveryOptions,
  clock: () => Date,
  claimMs: number,
): Promise<keyof DeliveryTally | null> {
  const at = clock();
  // The claim: still pending, still due, and not attempted since we read it (another process may
  // have claimed, failed and rescheduled it in between). Its count says whether we won; the new
  // nextAttemptAt hides the row from every other process while we send.
  const claimed = await db.prisma.notification.updateMany({
    where: { id: row.id, status: "pending", attempts: row.attempts, nextAttemptAt: { lte: at } },
    data: { attempts: row.attempts + 1, nextAttemptAt: new Date(at.getTime() + claimMs) },
  });
  if (claimed.count !== 1) return null; // another process got there first
  const attempts = row.attempts + 1;

  const result = await sendPayload(row.channel, row.payload, options, row.id);
  const finishedAt = clock();
  const retryAt = result.ok || result.permanent ? null : nextAttemptAfter(attempts, finishedAt);
  const status = result.ok ? "sent" : retryAt ? "pending" : "failed";

  await db.prisma.$transaction([
    db.prisma.deliveryAttempt.create({
      data: { id: newId(), notificationId: row.id, ok: result.ok, responseStatus: result.responseStatus ?? null, error: result.error ?? null, durationMs: result.durationMs, at },
    }),
    // Guarded by our attempt number: if the claim ran out mid-send and another process took the
    // row over, its outcome is the one that counts (the receiver may then see it twice: delivery
    // is at least once, and X-Deadbolt-Notification lets it tell).
    db.prisma.notification.updateMany({
      where: { id: row.id, status: "pending", attempts },
      data: { status, nextAttemptAt: retryAt, ...(result.ok ? { sentAt: finishedAt } : {}) },
    }),
  ]);
  return result.ok ? "sent" : retryAt ? "retried" : "failed";
}
