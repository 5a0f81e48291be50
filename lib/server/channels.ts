// Alert channels: create, list, delete, send a test, read the delivery log.
import type { AlertMessage, ChannelCreate } from "../contracts/alerts.ts";
import type { ChannelCreated, ChannelTestResult, ChannelView, DeliveryView } from "../contracts/channels.ts";
import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";
import { sendPayload, type ChannelRow as DeliverableChannel } from "./deliver-notifications.ts";
import { newId, newSecret } from "./ids.ts";

export interface ChannelRow extends DeliverableChannel {
  remindEveryMinutes: number | null;
  createdAt: Date;
}

/** What a read-only key may see of a webhook URL: its origin. The path of a Slack or Teams hook
 * is the credential, and any URL may carry a token in its query. */
function redactedUrl(target: string): string {
  try {
    const url = new URL(target);
    return url.pathname === "/" && !url.search ? url.origin : `${url.origin}/…`;
  } catch {
    return "…";
  }
}

export function toChannelView(row: ChannelRow, opts: { withSecrets: boolean }): ChannelView {
  const base = { id: row.id, name: row.name, kind: row.kind as ChannelView["kind"], remindEveryMinutes: row.remindEveryMinutes, createdAt: row.createdAt.toISOString() };
  if (row.kind === "email") return { ...base, address: row.target };
  return { ...base, url: opts.withSecrets ? row.target : redactedUrl(row.target), format: row.format === "slack" ? "slack" : "json", signed: row.secret !== null };
}

export async function createChannel(db: Database, input: ChannelCreate, now = new Date()): Promise<ChannelCreated> {
  const webhook = input.kind === "webhook";
  const row = await db.prisma.channel.create({
    data: {
      id: newId(),
      name: input.name,
      kind: input.kind,
      target: webhook ? input.url : input.address,
      // A webhook is always signed: a receiver that does not check yet can start to later.
      secret: webhook ? (input.secret ?? newSecret(24)) : null,
      format: webhook ? input.format : "json",
      remindEveryMinutes: input.remindEveryMinutes ?? null,
      createdAt: now,
    },
  });
  return { ...toChannelView(row, { withSecrets: true }), ...(row.secret ? { secret: row.secret } : {}) };
}

export async function getChannelOrThrow(db: Database, id: string): Promise<ChannelRow> {
  const row = await db.prisma.channel.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no channel '${id}'`);
  return row;
}

/** Channels in creation order (ids are time-ordered), keyset-paged on the id. */
export async function listChannels(db: Database, q: { cursor?: string; limit: number }): Promise<{ items: ChannelRow[]; nextCursor: string | null }> {
  const rows = await db.prisma.channel.findMany({ where: q.cursor ? { id: { gt: q.cursor } } : {}, orderBy: { id: "asc" }, take: q.limit + 1 });
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].id : null };
}

/** Deletes a channel with its job links, notifications and delivery log (cascade). */
export async function deleteChannel(db: Database, id: string): Promise<void> {
  const { count } = await db.prisma.channel.deleteMany({ where: { id } });
  if (count === 0) throw new AppError("not_found", `no channel '${id}'`);
}

export function testMessage(channel: { name: string }, baseUrl: string, now: Date): AlertMessage {
  return {
    event: "test",
    title: `[Deadbolt] Test notification for channel "${channel.name}"`,
    text: `This is a test sent from Deadbolt at ${now.toISOString()}.\nAlerts for the jobs linked to this channel will arrive the same way.`,
    incident: null,
    job: null,
    url: baseUrl,
    at: now.toISOString(),
  };
}

export interface TestOptions {
  baseUrl: string;
  smtpUrl?: string;
  alertFrom: string;
  timeoutMs?: number;
}

/** Sends one test notification now and records it with its single attempt. Never retried: the
 * person who asked is waiting for the answer, not for a retry hours later. */
export async function sendTestNotification(db: Database, id: string, options: TestOptions, now = new Date()): Promise<ChannelTestResult> {
  const channel = await getChannelOrThrow(db, id);
  const payload = JSON.stringify(testMessage(channel, options.baseUrl, now));
  const notificationId = newId();
  const result = await sendPayload(channel, payload, options, notificationId);
  const attemptId = newId();
  // Written after the send, in one statement: a crash mid-send leaves nothing half-done behind.
  try {
    await db.prisma.notification.create({
      data: {
        id: notificationId, incidentId: null, channelId: channel.id, event: "test", status: result.ok ? "sent" : "failed", payload,
        attempts: 1, nextAttemptAt: null, createdAt: now, sentAt: result.ok ? new Date(now.getTime() + result.durationMs) : null,
        deliveries: { create: { id: attemptId, ok: result.ok, responseStatus: result.responseStatus ?? null, error: result.error ?? null, durationMs: result.durationMs, at: now } },
      },
    });
  } catch (error) {
    // Deleted while the test was on its way.
    if ((error as { code?: string }).code === "P2003") throw new AppError("not_found", `no channel '${id}'`);
    throw error;
  }
  return { ok: result.ok, responseStatus: result.responseStatus ?? null, error: result.error ?? null, durationMs: result.durationMs, notificationId, attemptId };
}

/** A channel's delivery attempts, newest first, keyset-paged on the (time-ordered) id. */
export async function listDeliveries(db: Database, channelId: string, q: { cursor?: string; limit: number }): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
  await getChannelOrThrow(db, channelId);
  const rows = await db.prisma.deliveryAttempt.findMany({
    where: { notification: { channelId }, ...(q.cursor ? { id: { lt: q.cursor } } : {}) },
    orderBy: { id: "desc" },
    take: q.limit + 1,
    include: { notification: { select: { event: true, status: true, incidentId: true, payload: true } } },
  });
  const items = rows.slice(0, q.limit).map((a): DeliveryView => ({
    id: a.id,
    notificationId: a.notificationId,
    incidentId: a.notification.incidentId,
    event: a.notification.event as DeliveryView["event"],
    title: titleOf(a.notification.payload),
    notificationStatus: a.notification.status as DeliveryView["notificationStatus"],
    ok: a.ok,
    responseStatus: a.responseStatus,
    error: a.error,
    durationMs: a.durationMs,
    at: a.at.toISOString(),
  }));
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].id : null };
}

function titleOf(payload: string): string {
  try {
    const title = (JSON.parse(payload) as { title?: unknown }).title;
    return typeof title === "string" ? title : "";
  } catch {
    return "";
  }
}
