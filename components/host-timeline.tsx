// The recent executions as bars on one lane per host. Runs that overlapped in time are outlined in
// red and listed below; runs of a slot that ran more than once are hatched: the N-times problem.
import { formatDuration, formatUtc, OUTCOME_LABELS } from "./format";
import { Icon } from "./icons";
import type { TimelineRun } from "@/lib/contracts/dashboard";

const W = 720;
const LANE = 26;
const M = { top: 8, right: 12, bottom: 22, left: 140 };

export function HostTimeline({ runs, overlaps, fromMs, toMs, duplicates, refused }: {
  runs: TimelineRun[];
  overlaps: { a: { id: string; host: string }; b: { id: string; host: string }; ms: number }[];
  fromMs: number;
  toMs: number;
  duplicates: number;
  refused: number;
}) {
  if (runs.length === 0) return <p className="text-sm text-slate-500" data-testid="host-timeline">No runs yet.</p>;
  const hosts = [...new Set(runs.map((r) => r.host))];
  const span = Math.max(toMs - fromMs, 1000);
  const pad = span * 0.02;
  const plotW = W - M.left - M.right;
  const x = (ms: number) => M.left + ((ms - fromMs + pad) / (span + 2 * pad)) * plotW;
  const H = M.top + hosts.length * LANE + M.bottom;
  return (
    <div data-testid="host-timeline" data-overlaps={overlaps.length} data-duplicates={duplicates}>
      <div className="-mx-4 overflow-x-auto px-4">
      <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full min-w-[34rem]" role="img" aria-label={`Last ${runs.length} runs on ${hosts.length} host(s); ${overlaps.length} overlap(s)`}>
        <defs>
          <pattern id="dup-hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="5" height="5" fill="#fecaca" />
            <line x1="0" y1="0" x2="0" y2="5" stroke="#dc2626" strokeWidth="2" />
          </pattern>
        </defs>
        {hosts.map((host, i) => (
          <g key={host}>
            <rect x={M.left} y={M.top + i * LANE} width={plotW} height={LANE - 4} fill={i % 2 ? "#f8fafc" : "#f1f5f9"} />
            <text x={M.left - 8} y={M.top + i * LANE + 15} textAnchor="end" fontSize="11" fill="#334155">{host.length > 22 ? `${host.slice(0, 21)}…` : host}</text>
          </g>
        ))}
        {runs.map((r) => {
          const lane = hosts.indexOf(r.host);
          const bad = r.outcome === "failed" || r.outcome === "abandoned";
          const fill = r.duplicate ? "url(#dup-hatch)" : bad ? "#f87171" : r.running ? "#7dd3fc" : "#34d399";
          const x0 = x(r.startMs);
          return (
            <rect key={r.id} data-run={r.id} data-overlaps={r.overlaps || undefined} x={x0} y={M.top + lane * LANE + 3} width={Math.max(3, x(r.endMs) - x0)} height={LANE - 10} rx="2"
              fill={fill} stroke={r.overlaps ? "#b91c1c" : "none"} strokeWidth={r.overlaps ? 2 : 0}>
              <title>{`${r.host}: ${formatUtc(new Date(r.startMs).toISOString())}, ${formatDuration(r.endMs - r.startMs)}, ${OUTCOME_LABELS[r.outcome] ?? r.outcome}${r.slot ? `, slot ${formatUtc(r.slot)}` : ""}${r.overlaps ? ", overlapped another run" : ""}${r.duplicate ? ", its slot ran more than once" : ""}`}</title>
            </rect>
          );
        })}
        <text x={M.left} y={H - 6} fontSize="11" fill="#64748b">{formatUtc(new Date(fromMs).toISOString())}</text>
        <text x={M.left + plotW} y={H - 6} fontSize="11" fill="#64748b" textAnchor="end">{formatUtc(new Date(toMs).toISOString())}</text>
      </svg>
      </div>
      <p className="mt-1 text-xs text-slate-500">
        Last {runs.length} executions. Red outline: overlapped another run. Hatched: its slot ran more than once.
        {refused > 0 ? ` ${refused} refused claim(s) among the last runs: the lease or slot claim prevented a duplicate.` : ""}
      </p>
      {overlaps.length > 0 && (
        <ul className="mt-2 space-y-1 text-sm text-red-800" data-testid="overlap-list">
          {overlaps.slice(0, 10).map((o) => (
            <li key={`${o.a.id}-${o.b.id}`}>
              <Icon name="alert" className="mr-1 inline h-4 w-4 align-[-3px]" />a run on <b>{o.b.host}</b> started while one on <b>{o.a.host}</b> was still running ({formatDuration(o.ms)} overlap)
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
