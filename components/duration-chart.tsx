// Durations of the recent runs against the job's limits: the lease TTL, 80 % of it (where the
// checker raises ttl_risk) and the max runtime as lines, so a TTL about to be outgrown is visible
// before a second server starts the job while the first is still running.
import { formatAxis, formatDuration, formatUtc, OUTCOME_LABELS } from "./format";
import type { ChartPoint } from "@/lib/contracts/dashboard";

const W = 720;
const H = 240;
const M = { top: 14, right: 120, bottom: 26, left: 60 };

export function DurationChart({ points, leaseTtlSeconds, maxRuntimeSeconds, minRuntimeSeconds }: {
  points: ChartPoint[];
  leaseTtlSeconds: number;
  maxRuntimeSeconds: number | null;
  minRuntimeSeconds: number | null;
}) {
  const ttlMs = leaseTtlSeconds * 1000;
  const maxRunMs = maxRuntimeSeconds ? maxRuntimeSeconds * 1000 : null;
  const worst = points.length ? Math.max(...points.map((p) => p.durationMs)) : 0;
  const top = Math.max(worst * 1.15, ttlMs * 1.08, (maxRunMs ?? 0) * 1.08, 1000);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const y = (ms: number) => M.top + plotH - (ms / top) * plotH;
  const slot = plotW / Math.max(points.length, 20);
  const lines = [
    { key: "ttl-line", ms: ttlMs, label: `lease TTL ${formatDuration(ttlMs)}`, color: "#dc2626", dash: "6 4" },
    { key: "ttl-risk-line", ms: ttlMs * 0.8, label: "80 % TTL: risk", color: "#d97706", dash: "2 3" },
    ...(maxRunMs ? [{ key: "max-runtime-line", ms: maxRunMs, label: `max runtime ${formatDuration(maxRunMs)}`, color: "#7c3aed", dash: "8 3" }] : []),
    ...(minRuntimeSeconds ? [{ key: "min-runtime-line", ms: minRuntimeSeconds * 1000, label: `min runtime ${formatDuration(minRuntimeSeconds * 1000)}`, color: "#64748b", dash: "1 3" }] : []),
  ];
  const summary = points.length
    ? `Durations of the last ${points.length} runs; longest ${formatDuration(worst)}, ${Math.round((100 * worst) / ttlMs)} % of the lease TTL.`
    : "No run with a duration yet.";
  return (
    <figure data-testid="duration-chart" data-points={points.length}>
      <div className="-mx-4 overflow-x-auto px-4">
      <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full min-w-[34rem]" role="img" aria-label={summary}>
        <title>{summary}</title>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={M.left} x2={M.left + plotW} y1={y(top * f)} y2={y(top * f)} stroke="#e2e8f0" />
            <text x={M.left - 6} y={y(top * f) + 4} textAnchor="end" fontSize="11" fill="#64748b">{formatAxis(top * f)}</text>
          </g>
        ))}
        {points.map((p, i) => {
          const h = Math.max(2, y(0) - y(p.durationMs));
          const bad = p.outcome === "failed" || p.outcome === "abandoned";
          const fill = bad ? "#dc2626" : p.running ? "#38bdf8" : p.durationMs > ttlMs * 0.8 ? "#d97706" : "#10b981";
          return (
            <rect key={p.id} data-run={p.id} x={M.left + i * slot + slot * 0.15} y={y(0) - h} width={Math.max(2, slot * 0.7)} height={h} fill={fill} opacity={p.running ? 0.6 : 1}>
              <title>{`${formatUtc(p.startedAt)}: ${formatDuration(p.durationMs)} (${OUTCOME_LABELS[p.outcome] ?? p.outcome}${p.running ? ", so far" : ""})`}</title>
            </rect>
          );
        })}
        {lines.map((l) => (
          <g key={l.key} data-testid={l.key}>
            <line x1={M.left} x2={M.left + plotW} y1={y(l.ms)} y2={y(l.ms)} stroke={l.color} strokeWidth="1.5" strokeDasharray={l.dash} />
            <text x={M.left + plotW + 6} y={y(l.ms) + 4} fontSize="11" fill={l.color}>{l.label}</text>
          </g>
        ))}
        <line x1={M.left} x2={M.left + plotW} y1={y(0)} y2={y(0)} stroke="#94a3b8" />
        <text x={M.left} y={H - 8} fontSize="11" fill="#64748b">older</text>
        <text x={M.left + plotW} y={H - 8} fontSize="11" fill="#64748b" textAnchor="end">newest</text>
      </svg>
      </div>
      <figcaption className="mt-1 text-xs text-slate-500">{summary} Red: failed. Amber: above 80 % of the TTL. Pale blue: still running.</figcaption>
    </figure>
  );
}
