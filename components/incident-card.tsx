// One incident: what happened, since when, the evidence the checker saw, and how it ended.
import { INCIDENT_TITLES } from "@/lib/domain/incidents";
import { formatDuration, formatRelative, formatUtc } from "./format";
import { Icon } from "./icons";

export interface IncidentItem {
  id: string;
  job: string;
  kind: string;
  status: string;
  summary: string;
  evidence: Record<string, unknown>;
  openedAt: string;
  resolvedAt: string | null;
}

function evidenceValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function IncidentCard({ incident, now, showJob = true }: { incident: IncidentItem; now: string; showJob?: boolean }) {
  const open = incident.status === "open";
  const { resolution, ...evidence } = incident.evidence;
  const entries = Object.entries(evidence).filter(([, v]) => v !== null && v !== undefined);
  return (
    <article data-testid="incident" data-kind={incident.kind} data-status={incident.status}
      className={`rounded-lg border p-3 ${open ? "border-red-200 bg-red-50" : "border-slate-200 bg-white"}`}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className={`inline-flex items-center gap-1 text-sm font-semibold ${open ? "text-red-800" : "text-slate-700"}`}>
          <Icon name={open ? "alert" : "check"} className="h-4 w-4" />
          {open ? "open" : "resolved"}: {INCIDENT_TITLES[incident.kind as keyof typeof INCIDENT_TITLES] ?? incident.kind}
        </span>
        {showJob && <a href={`/jobs/${incident.job}`} className="font-mono text-sm text-slate-700 underline">{incident.job}</a>}
        <span className="text-xs text-slate-500" title={formatUtc(incident.openedAt)}>
          opened {formatRelative(incident.openedAt, now)}
          {incident.resolvedAt
            ? `, resolved after ${formatDuration(new Date(incident.resolvedAt).getTime() - new Date(incident.openedAt).getTime())}`
            : `, open for ${formatDuration(new Date(now).getTime() - new Date(incident.openedAt).getTime())}`}
        </span>
      </div>
      <p className="mt-1 text-sm text-slate-800">{incident.summary}</p>
      {typeof resolution === "string" && <p className="mt-1 text-sm text-emerald-800">Resolved: {resolution}</p>}
      {entries.length > 0 && (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-slate-600">Evidence</summary>
          <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5">
            {entries.map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="text-slate-500">{k}</dt>
                <dd className="break-all font-mono">
                  {k === "runId" && typeof v === "string" ? <a href={`/runs/${v}`} className="underline">{v}</a> : evidenceValue(v)}
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </article>
  );
}
