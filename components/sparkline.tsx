// Recent run durations of one job as tiny bars (oldest left). Failed runs are red and drop below
// the baseline, so failures read without colour too; runs without a duration are dots.
import { formatDuration } from "./format";
import type { SparkPoint } from "@/lib/contracts/dashboard";

const W = 96;
const H = 24;

export function Sparkline({ points }: { points: SparkPoint[] }) {
  if (points.length === 0) return <span className="text-xs text-slate-400">no runs</span>;
  const max = Math.max(1, ...points.map((p) => p.durationMs ?? 0));
  const step = W / Math.max(points.length, 12);
  const failed = points.filter((p) => p.outcome === "failed" || p.outcome === "abandoned").length;
  const worst = Math.max(...points.map((p) => p.durationMs ?? 0));
  const label = `last ${points.length} runs: ${failed} failed, longest ${formatDuration(worst)}`;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={label} className="overflow-visible">
      <title>{label}</title>
      <line x1="0" x2={W} y1={H - 4} y2={H - 4} stroke="#e2e8f0" strokeWidth="1" />
      {points.map((p, i) => {
        const x = i * step + step * 0.15;
        const w = Math.max(1.5, step * 0.7);
        const bad = p.outcome === "failed" || p.outcome === "abandoned";
        const skipped = p.outcome.startsWith("skipped_");
        if (skipped) return <rect key={i} x={x} y={H - 5} width={w} height={1.5} fill="#94a3b8" />;
        if (p.durationMs === null) return <circle key={i} cx={x + w / 2} cy={bad ? H - 1.5 : H - 7} r={1.6} fill={bad ? "#dc2626" : "#10b981"} />;
        const h = Math.max(1.5, (p.durationMs / max) * (H - 6));
        return bad ? (
          <rect key={i} x={x} y={H - 4} width={w} height={4} fill="#dc2626" />
        ) : (
          <rect key={i} x={x} y={H - 4 - h} width={w} height={h} fill={p.outcome === "running" ? "#38bdf8" : "#10b981"} />
        );
      })}
    </svg>
  );
}
