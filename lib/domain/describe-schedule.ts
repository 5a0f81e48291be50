// A schedule in words, for people reading the dashboard at 3 a.m.: "every 5 minutes",
// "at 02:30, Europe/Berlin", "at 09:00 on weekdays, America/New_York". Covers the shapes crontabs
// are made of; anything else is shown as the expression itself rather than described wrongly.
import type { Schedule } from "./schedule.ts";

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAY_ALIASES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTH_ALIASES: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };

const UNITS: [number, string][] = [
  [86_400, "day"],
  [3_600, "hour"],
  [60, "minute"],
  [1, "second"],
];

const plural = (n: number, unit: string) => (n === 1 ? unit : `${n} ${unit}s`);

/** "every 5 minutes", "every hour", "every 90 seconds". */
export function describeEvery(everySeconds: number): string {
  for (const [size, unit] of UNITS) {
    if (everySeconds % size === 0) return `every ${plural(everySeconds / size, unit)}`;
  }
  return `every ${everySeconds} seconds`;
}

/** A duration in the largest whole unit that fits: "15 min", "1 h 30 min", "45 s". */
export function describeSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  if (seconds < 86_400) {
    const h = Math.floor(seconds / 3600);
    const m = Math.round((seconds % 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(seconds / 86_400);
  const h = Math.round((seconds % 86_400) / 3600);
  return h ? `${d} d ${h} h` : `${d} d`;
}

const list = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`);
const pad = (n: number) => String(n).padStart(2, "0");
const isNumber = (s: string) => /^\d+$/.test(s);

type Field =
  | { kind: "any" }
  | { kind: "step"; step: number; from: number }
  | { kind: "values"; values: number[] }
  | { kind: "range"; from: number; to: number };

/** One cron field, or null when its shape is not one we describe. */
function parseField(raw: string, aliases: Record<string, number> = {}): Field | null {
  const value = (s: string): number | null => {
    const lower = s.toLowerCase();
    if (lower in aliases) return aliases[lower];
    return isNumber(s) ? Number(s) : null;
  };
  if (raw === "*" || raw === "?") return { kind: "any" };
  let m = /^(\*|\d+)\/(\d+)$/.exec(raw);
  if (m) return { kind: "step", step: Number(m[2]), from: m[1] === "*" ? 0 : Number(m[1]) };
  m = /^(\w+)-(\w+)$/.exec(raw);
  if (m) {
    const from = value(m[1]);
    const to = value(m[2]);
    return from === null || to === null ? null : { kind: "range", from, to };
  }
  const values = raw.split(",").map(value);
  if (values.some((v) => v === null)) return null;
  return { kind: "values", values: values as number[] };
}

function describeDays(dom: Field, month: Field, dow: Field): string | null {
  const parts: string[] = [];
  const dayOfWeek = (d: number) => DAY_NAMES[d % 7];
  let dowText: string | null = null;
  if (dow.kind === "range") {
    if (dow.from === 1 && dow.to === 5) dowText = "on weekdays";
    else dowText = `from ${dayOfWeek(dow.from)} to ${dayOfWeek(dow.to)}`;
  } else if (dow.kind === "values") {
    const set = [...new Set(dow.values.map((d) => d % 7))].sort();
    dowText = set.length === 2 && set[0] === 0 && set[1] === 6 ? "on weekends" : `on ${list(set.map(dayOfWeek))}`;
  } else if (dow.kind === "step") return null;

  let domText: string | null = null;
  if (dom.kind === "values") domText = `on day${dom.values.length > 1 ? "s" : ""} ${list(dom.values.map(String))} of the month`;
  else if (dom.kind === "range") domText = `on days ${dom.from} to ${dom.to} of the month`;
  else if (dom.kind === "step") domText = dom.step === 1 ? null : `every ${dom.step} days of the month`;

  // Vixie cron (and croner) fire when either day field matches if both are restricted.
  if (domText && dowText) parts.push(`${domText} or ${dowText}`);
  else if (domText) parts.push(domText);
  else if (dowText) parts.push(dowText);

  if (month.kind === "values") parts.push(`in ${list(month.values.map((m) => MONTH_NAMES[m - 1] ?? String(m)))}`);
  else if (month.kind === "range") parts.push(`from ${MONTH_NAMES[month.from - 1]} to ${MONTH_NAMES[month.to - 1]}`);
  else if (month.kind === "step") return null;
  return parts.join(" ");
}

/** The time-of-day part, and whether it names clock times (so the zone matters). */
function describeTime(sec: Field, min: Field, hour: Field): { text: string; clock: boolean } | null {
  const secondZero = sec.kind === "values" && sec.values.length === 1 && sec.values[0] === 0;
  if (!secondZero) {
    if (min.kind !== "any" || hour.kind !== "any") return null;
    if (sec.kind === "any") return { text: "every second", clock: false };
    if (sec.kind === "step" && sec.from === 0) return { text: `every ${plural(sec.step, "second")}`, clock: false };
    return null;
  }
  const minutes = min.kind === "values" ? min.values : null;
  if (hour.kind === "values" && minutes) {
    const times = hour.values.flatMap((h) => minutes.map((m) => `${pad(h)}:${pad(m)}`));
    return times.length <= 6 ? { text: `at ${list(times)}`, clock: true } : null;
  }
  let minuteText: string;
  if (min.kind === "any") minuteText = "every minute";
  else if (min.kind === "step" && min.from === 0) minuteText = `every ${plural(min.step, "minute")}`;
  else if (minutes) minuteText = hour.kind === "any" ? `every hour at ${list(minutes.map((m) => `:${pad(m)}`))}` : `at ${list(minutes.map((m) => `:${pad(m)}`))}`;
  else return null;

  if (hour.kind === "any") return { text: minuteText, clock: false };
  if (hour.kind === "step" && hour.from === 0) {
    const at = minutes ? ` at ${list(minutes.map((m) => `:${pad(m)}`))}` : "";
    return minutes ? { text: `every ${plural(hour.step, "hour")}${at}`, clock: true } : { text: `${minuteText}, every ${plural(hour.step, "hour")}`, clock: true };
  }
  if (hour.kind === "range") {
    const base = minutes ? `every hour at ${list(minutes.map((m) => `:${pad(m)}`))}` : minuteText;
    return { text: `${base} from ${pad(hour.from)}:00 to ${pad(hour.to)}:59`, clock: true };
  }
  if (hour.kind === "values") {
    // Sub-hourly within given hours: "every 15 minutes during 02:00-02:59 and 14:00-14:59".
    return { text: `${minuteText} during ${list(hour.values.map((h) => `${pad(h)}:00–${pad(h)}:59`))}`, clock: true };
  }
  return null;
}

const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** A cron expression in words, with the zone when clock times or days depend on it. */
export function describeCron(expr: string, tz: string): string {
  const trimmed = expr.trim();
  const expanded = NICKNAMES[trimmed.toLowerCase()] ?? trimmed;
  const fields = expanded.split(/\s+/);
  const fallback = `cron ${trimmed} (${tz})`;
  if (fields.length !== 5 && fields.length !== 6) return fallback;
  const [secRaw, minRaw, hourRaw, domRaw, monthRaw, dowRaw] = fields.length === 6 ? fields : ["0", ...fields];
  const sec = parseField(secRaw);
  const min = parseField(minRaw);
  const hour = parseField(hourRaw);
  const dom = domRaw === "L" ? ({ kind: "last" } as const) : parseField(domRaw);
  const month = parseField(monthRaw, MONTH_ALIASES);
  const dow = parseField(dowRaw, DAY_ALIASES);
  if (!sec || !min || !hour || !dom || !month || !dow) return fallback;
  const time = describeTime(sec, min, hour);
  const days = dom.kind === "last" ? (dow.kind === "any" && month.kind === "any" ? "on the last day of the month" : null) : describeDays(dom, month, dow);
  if (!time || days === null) return fallback;
  const text = days ? `${time.text} ${days}` : time.text;
  return time.clock || days ? `${text}, ${tz}` : text;
}

export function describeSchedule(schedule: Schedule): string {
  return schedule.kind === "every" ? describeEvery(schedule.everySeconds) : describeCron(schedule.cron, schedule.tz);
}
