// Job status and run outcome as icon + word: readable without colour, colour only reinforces.
import type { JobStatus } from "@/lib/domain/job-status";
import { STATUS_MEANING } from "@/lib/domain/job-status";
import { OUTCOME_LABELS } from "./format";
import { Icon, type IconName } from "./icons";

const STATUS_STYLE: Record<JobStatus, { icon: IconName; className: string }> = {
  down: { icon: "cross", className: "bg-red-100 text-red-800 ring-red-300" },
  late: { icon: "clock", className: "bg-amber-100 text-amber-900 ring-amber-300" },
  running: { icon: "play", className: "bg-sky-100 text-sky-800 ring-sky-300" },
  new: { icon: "spark", className: "bg-slate-100 text-slate-700 ring-slate-300" },
  up: { icon: "check", className: "bg-emerald-100 text-emerald-800 ring-emerald-300" },
  paused: { icon: "pause", className: "bg-slate-200 text-slate-700 ring-slate-300" },
};

export function StatusBadge({ status, size = "sm" }: { status: JobStatus; size?: "sm" | "lg" }) {
  const style = STATUS_STYLE[status];
  return (
    <span
      data-testid="job-status"
      data-status={status}
      title={STATUS_MEANING[status]}
      className={`inline-flex items-center gap-1 rounded-full font-medium ring-1 ring-inset ${style.className} ${size === "lg" ? "px-3 py-1 text-sm" : "px-2 py-0.5 text-xs"}`}
    >
      <Icon name={style.icon} className={size === "lg" ? "h-4 w-4" : "h-3.5 w-3.5"} />
      {status}
    </span>
  );
}

const OUTCOME_STYLE: Record<string, { icon: IconName; className: string }> = {
  succeeded: { icon: "check", className: "text-emerald-700" },
  failed: { icon: "cross", className: "text-red-700" },
  abandoned: { icon: "alert", className: "text-red-700" },
  running: { icon: "play", className: "text-sky-700" },
  skipped_lease_held: { icon: "minus", className: "text-slate-500" },
  skipped_slot_done: { icon: "minus", className: "text-slate-500" },
};

export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  if (!outcome) return <span className="text-slate-400">—</span>;
  const style = OUTCOME_STYLE[outcome] ?? { icon: "minus" as const, className: "text-slate-600" };
  return (
    <span data-outcome={outcome} className={`inline-flex items-center gap-1 whitespace-nowrap font-medium ${style.className}`}>
      <Icon name={style.icon} className="h-3.5 w-3.5" />
      {OUTCOME_LABELS[outcome] ?? outcome}
    </span>
  );
}
