// Incidents and their notifications, inside the write transaction that found the problem: the
// incident row is both the history and the alert outbox's source (one Notification row per linked
// channel), so an alert can never be lost between "found" and "queued", nor queued twice: at most
// one incident per (job, kind) is open, held by the unique openKey.
import type { AlertMessage, IncidentKind, NotificationEvent } from "../contracts/alerts.ts";
import { INCIDENT_TITLES, incidentSummary } from "../domain/incidents.ts";
import { readConfig } from "./config.ts";
import { newId } from "./ids.ts";
import { countOpenIncident } from "./job-ledger.ts";
import { asDate, type Tx } from "./sql.ts";

export interface JobRef {
  id: string;
  slug: string;
  name: string;
  paused: boolean;
}

export const JOB_REF_COLUMNS = `"id", "slug", "name", "paused"`;
export const toJobRef = (row: Record<string, unknown>): JobRef => ({
  id: row.id as string,
  slug: row.slug as string,
  name: row.name as string,
  paused: row.paused === true || row.paused === 1,
});

interface IncidentRow {
  id: string;
  kind: IncidentKind;
  summary: string;
  evidence: Record<string, unknown>;
  openedAt: Date;
  resolvedAt: Date | null;
}

let cachedBaseUrl: string | undefined;
/** Links in alerts point at DEADBOLT_BASE_URL (read once). */
const baseUrl = () => (cachedBaseUrl ??= readConfig().baseUrl);

function alertMessage(job: JobRef, incident: IncidentRow, event: NotificationEvent, now: Date): AlertMessage {
  const resolved = event === "resolved";
  const title = `[Deadbolt] ${job.slug}: ${resolved ? "recovered from " : event === "reminder" ? "still " : ""}${INCIDENT_TITLES[incident.kind]}`;
  const lines = [incident.summary];
  lines.push(`Opened ${incident.openedAt.toISOString()}${resolved && incident.resolvedAt ? `, resolved ${incident.resolvedAt.toISOString()}` : ""}.`);
  const hosts = incident.evidence.hosts as string[] | undefined;
  if (hosts?.length) lines.push(`Hosts: ${hosts.join(", ")}.`);
  return {
    event,
    title,
    text: lines.join("\n"),
    incident: {
      id: incident.id,
      kind: incident.kind,
      status: resolved ? "resolved" : "open",
      summary: incident.summary,
      evidence: incident.evidence,
      openedAt: incident.openedAt.toISOString(),
      resolvedAt: incident.resolvedAt ? incident.resolvedAt.toISOString() : null,
    },
    job: { slug: job.slug, name: job.name },
    url: `${baseUrl()}/jobs/${encodeURIComponent(job.slug)}`,
    at: now.toISOString(),
  };
}

async function enqueueNotifications(tx: Tx, job: JobRef, incident: IncidentRow, event: NotificationEvent, now: Date, delayMs = 0, onlyChannelId?: string): Promise<number> {
  const channels = onlyChannelId
    ? [{ channelId: onlyChannelId }]
    : await tx.all<{ channelId: string }>(`SELECT "channelId" FROM "JobChannel" WHERE "jobId" = ?`, [job.id]);
  if (channels.length === 0) return 0;
  const payload = JSON.stringify(alertMessage(job, incident, event, now));
  const due = new Date(now.getTime() + delayMs);
  for (const { channelId } of channels) {
    await tx.run(
      `INSERT INTO "Notification" ("id", "incidentId", "channelId", "event", "status", "payload", "attempts", "nextAttemptAt", "createdAt") VALUES (?, ?, ?, ?, 'pending', ?, 0, ?, ?)`,
      [newId(), incident.id, channelId, event, payload, due, now],
    );
  }
  return channels.length;
}

/**
 * Opens an incident of this kind unless one is already open (then returns it unchanged) or the job
 * is paused (paused jobs raise nothing). `notifyDelayMs` holds the notification back briefly where
 * more evidence is expected (the other hosts of a duplicate slot).
 */
export async function openIncident(tx: Tx, job: JobRef, kind: IncidentKind, evidence: Record<string, unknown>, now: Date, notifyDelayMs = 0): Promise<{ id: string; opened: boolean } | null> {
  if (job.paused) return null;
  const openKey = `${job.id}:${kind}`;
  const existing = await tx.one<{ id: string }>(`SELECT "id" FROM "Incident" WHERE "openKey" = ?`, [openKey]);
  if (existing) return { id: existing.id, opened: false };
  const incident: IncidentRow = { id: newId(), kind, summary: incidentSummary(kind, evidence), evidence, openedAt: now, resolvedAt: null };
  const inserted = await tx.run(
    `INSERT INTO "Incident" ("id", "jobId", "kind", "status", "openKey", "summary", "evidence", "openedAt") VALUES (?, ?, ?, 'open', ?, ?, ?, ?) ON CONFLICT ("openKey") DO NOTHING`,
    [incident.id, job.id, kind, openKey, incident.summary, JSON.stringify(evidence), now],
  );
  if (inserted !== 1) return { id: (await tx.one<{ id: string }>(`SELECT "id" FROM "Incident" WHERE "openKey" = ?`, [openKey]))!.id, opened: false };
  await tx.run(`UPDATE "Job" SET "openIncidents" = "openIncidents" + 1 WHERE "id" = ?`, [job.id]);
  countOpenIncident(tx, job.id, 1);
  await enqueueNotifications(tx, job, incident, "opened", now, notifyDelayMs);
  return { id: incident.id, opened: true };
}

function toIncident(row: Record<string, unknown>): IncidentRow {
  return {
    id: row.id as string,
    kind: row.kind as IncidentKind,
    summary: row.summary as string,
    evidence: JSON.parse(row.evidence as string) as Record<string, unknown>,
    openedAt: asDate(row.openedAt)!,
    resolvedAt: asDate(row.resolvedAt),
  };
}

/** Resolves the job's open incidents of these kinds; each resolution is notified once. */
export async function resolveIncidents(tx: Tx, job: JobRef, kinds: readonly IncidentKind[], now: Date, resolution: string): Promise<IncidentKind[]> {
  if (kinds.length === 0) return [];
  const keys = kinds.map((kind) => `${job.id}:${kind}`);
  const rows = await tx.all<Record<string, unknown>>(
    `SELECT "id", "kind", "summary", "evidence", "openedAt", "resolvedAt" FROM "Incident" WHERE "openKey" IN (${keys.map(() => "?").join(", ")})`,
    keys,
  );
  const resolved: IncidentKind[] = [];
  for (const row of rows) {
    const incident = toIncident(row);
    const evidence = { ...incident.evidence, resolution };
    // Checked by its count: a concurrent resolver (another checker) may have got there first.
    const changed = await tx.run(`UPDATE "Incident" SET "status" = 'resolved', "openKey" = NULL, "resolvedAt" = ?, "evidence" = ? WHERE "id" = ? AND "status" = 'open'`, [
      now, JSON.stringify(evidence), incident.id,
    ]);
    if (changed !== 1) continue;
    await tx.run(`UPDATE "Job" SET "openIncidents" = "openIncidents" - 1 WHERE "id" = ? AND "openIncidents" > 0`, [job.id]);
    countOpenIncident(tx, job.id, -1);
    await enqueueNotifications(tx, job, { ...incident, evidence, resolvedAt: now }, "resolved", now);
    resolved.push(incident.kind);
  }
  return resolved;
}

/** Adds evidence to an open incident (a third host of a duplicate slot), and to its notifications
 * that have not gone out yet. */
export async function updateIncidentEvidence(tx: Tx, job: JobRef, incidentId: string, evidence: Record<string, unknown>, now: Date): Promise<void> {
  const row = await tx.one<Record<string, unknown>>(`SELECT "id", "kind", "summary", "evidence", "openedAt", "resolvedAt" FROM "Incident" WHERE "id" = ?`, [incidentId]);
  if (!row) return;
  const incident = { ...toIncident(row), evidence };
  incident.summary = incidentSummary(incident.kind, evidence);
  await tx.run(`UPDATE "Incident" SET "evidence" = ?, "summary" = ? WHERE "id" = ?`, [JSON.stringify(evidence), incident.summary, incidentId]);
  await tx.run(`UPDATE "Notification" SET "payload" = ? WHERE "incidentId" = ? AND "event" = 'opened' AND "status" = 'pending' AND "attempts" = 0`, [
    JSON.stringify(alertMessage(job, incident, "opened", now)), incidentId,
  ]);
}

/**
 * Reminders for channels that ask for them (remindEveryMinutes): an open incident whose newest
 * notification to that channel is older than the interval gets one more. Bounded by the number of
 * open incidents, not of jobs.
 */
export async function queueReminders(tx: Tx, now: Date): Promise<number> {
  const due = await tx.all<Record<string, unknown>>(
    `SELECT i."id", i."kind", i."summary", i."evidence", i."openedAt", i."resolvedAt", j."id" AS "jobId", j."slug", j."name", j."paused", c."id" AS "channelId", c."remindEveryMinutes",
            (SELECT MAX(n."createdAt") FROM "Notification" n WHERE n."incidentId" = i."id" AND n."channelId" = c."id") AS "lastSentAt"
       FROM "Incident" i JOIN "Job" j ON j."id" = i."jobId" JOIN "JobChannel" jc ON jc."jobId" = j."id" JOIN "Channel" c ON c."id" = jc."channelId"
      WHERE i."status" = 'open' AND c."remindEveryMinutes" IS NOT NULL AND j."paused" = ?`,
    [false],
  );
  let queued = 0;
  for (const row of due) {
    const last = asDate(row.lastSentAt) ?? asDate(row.openedAt)!;
    if (last.getTime() + Number(row.remindEveryMinutes) * 60_000 > now.getTime()) continue;
    const job = toJobRef({ id: row.jobId, slug: row.slug, name: row.name, paused: row.paused });
    queued += await enqueueNotifications(tx, job, toIncident(row), "reminder", now, 0, row.channelId as string);
    await tx.run(`UPDATE "Incident" SET "remindedAt" = ? WHERE "id" = ?`, [now, row.id as string]);
  }
  return queued;
}
