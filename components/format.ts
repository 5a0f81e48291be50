// Formatting shared by server and client components. Times are rendered against the server's
// `now` (passed down), never the browser's clock: the page says what the server knew.

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const join = (a: string, b: number, unit: string) => (b ? `${a} ${b} ${unit}` : a);
  if (m < 60) return join(`${m} min`, Math.round(s % 60), "s");
  const h = Math.floor(m / 60);
  if (h < 48) return join(`${h} h`, m % 60, "min");
  return join(`${Math.floor(h / 24)} d`, h % 24, "h");
}

/** An axis label: one unit, at most one decimal ("1.5 min", "40 s", "250 ms"). */
export function formatAxis(ms: number): string {
  const one = (n: number) => String(Math.round(n * 10) / 10);
  if (ms === 0) return "0";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${one(ms / 1000)} s`;
  if (ms < 3_600_000) return `${one(ms / 60_000)} min`;
  return `${one(ms / 3_600_000)} h`;
}

/** "3 min ago", "in 2 h" — relative to the given `now`. */
export function formatRelative(iso: string | null | undefined, nowIso: string): string {
  if (!iso) return "—";
  const diff = new Date(iso).getTime() - new Date(nowIso).getTime();
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 10_000) return diff <= 0 ? "just now" : "in a few seconds";
  if (abs < 60_000) text = `${Math.round(abs / 1000)} s`;
  else if (abs < 3_600_000) text = `${Math.round(abs / 60_000)} min`;
  else if (abs < 48 * 3_600_000) text = `${Math.round(abs / 3_600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} d`;
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

/** "2026-11-30 09:52:07 UTC" */
export function formatUtc(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** A time in a job's zone: "Mon 30 Nov 2026, 02:30 CET". */
export function formatInZone(iso: string, timeZone: string): string {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone, weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short", hourCycle: "h23" });
    zoneFormats.set(timeZone, format);
  }
  return format.format(new Date(iso));
}

export const OUTCOME_LABELS: Record<string, string> = {
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  abandoned: "abandoned",
  skipped_lease_held: "refused: lease held",
  skipped_slot_done: "refused: slot done",
};
