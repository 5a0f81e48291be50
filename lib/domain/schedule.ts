/**
 * Schedule maths for Deadbolt: when a job fires, which slot a claim or ping belongs to, and how
 * much early arrival we tolerate. Pure: no database, no framework, no clock. Every "now" is a
 * parameter.
 *
 * Two kinds of schedule:
 *
 * - `every`: fires at the UTC epoch multiples of `everySeconds` (t = k * N seconds since
 *   1970-01-01T00:00:00Z). Every host computes the same slots without sharing any state.
 *
 * - `cron`: a 5-field expression (minute hour day-of-month month day-of-week), or 6 fields with a
 *   leading seconds field, or a nickname (@yearly, @annually, @monthly, @weekly, @daily,
 *   @midnight, @hourly), read in an IANA time zone. Evaluated by croner. Year fields (7 parts),
 *   one-shot ISO dates and @reboot are rejected.
 *
 * DST, as croner 11 does it (it follows Vixie cron; observed facts, pinned by the unit tests):
 *
 * - Spring forward (a local time that does not exist):
 *   - A fixed-time job (one value each in seconds, minutes and hours, e.g. `30 2 * * *`) runs
 *     once that day, at the first valid local time after the gap. In Europe/Berlin on
 *     2026-03-29, 02:00-02:59 does not exist; `30 2 * * *` fires at 03:00 CEST = 01:00Z
 *     (not 03:30). In America/New_York on 2026-03-08 it fires at 03:00 EDT = 07:00Z.
 *   - An interval job (wildcard, step, range or list in seconds/minutes/hours, e.g.
 *     `30 * * * *` or `*\/30 2 * * *`) skips the nonexistent times: `30 * * * *` in Berlin
 *     goes 01:30 CET (00:30Z) -> 03:30 CEST (01:30Z); `*\/30 2 * * *` does not fire at all that day.
 * - Fall back (a local time that occurs twice):
 *   - A fixed-time job fires once, at the first occurrence: `30 2 * * *` in Berlin on
 *     2026-10-25 fires at 02:30 CEST = 00:30Z only (not again at 02:30 CET = 01:30Z).
 *     `30 1 * * *` in New York on 2026-11-01 fires at 01:30 EDT = 05:30Z only.
 *   - An interval job fires on both occurrences: `30 * * * *` in Berlin fires at 00:30Z and at
 *     01:30Z (both are 02:30 local).
 *
 * So the period around a DST change can be shorter or longer than usual (e.g. 23 h or 25 h for a
 * daily job, 23.5 h for `30 2 * * *` into the Berlin gap), and `periodSecondsAt` reports the
 * real elapsed seconds.
 *
 * Consistency: `previousFireTime`, `slotFor` and `nextSlotAfter` only ever return instants that
 * `nextFireTimes` also produces (croner's previousRuns and nextRuns agree, including across DST;
 * the unit tests sweep both transitions to check this).
 *
 * Range: cron schedules are taken to begin at 1970-01-01T00:00:00Z; there are no cron fire times
 * before it, so `previousFireTime`/`slotFor` return null for earlier instants. (croner cannot
 * represent years below 100, and a previous-run search that reaches them spins for tens of
 * seconds, so we never ask it about that range.) croner also finds no fire times from the year
 * 3000 on, so `nextSlotAfter` throws there. `every` schedules have no such limits.
 *
 * Precision: cron fire times are whole seconds. croner's previousRuns(ref) returns fire times
 * strictly before ref truncated to the second, and nextRun(ref) fire times strictly after it, so
 * we feed previousRuns the next whole second to get "<= at" exactly at millisecond precision.
 */
import { Cron } from "croner";

export type Schedule = { kind: "cron"; cron: string; tz: string } | { kind: "every"; everySeconds: number };

/** Longest early arrival we ever tolerate, in ms. */
export const MAX_SLOT_TOLERANCE_MS = 60_000;

const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/** Fixed reference for the "does it ever fire" check, so validation does not depend on a clock. */
const NEVER_FIRES_REFERENCE = new Date(Date.UTC(2000, 0, 1));

/** No cron fire time is earlier than this (1970-01-01T00:00:00Z). */
const CRON_EPOCH_MS = 0;

const CACHE_LIMIT = 1000;

type Span = { prev: number; next: number };
type Compiled = { cron: Cron; spans: Span[] };

/** Parsed Cron instances by `expr|tz`, plus the last couple of [prev, next) spans looked up. */
const compiledCache = new Map<string, Compiled>();

function newCron(expr: string, tz: string | undefined): Cron {
  return new Cron(expr, { timezone: tz, paused: true, mode: "5-or-6-parts" });
}

/** Parses `expr` (in `tz`, or the process zone when undefined), returning the Cron or a message. Does not validate `tz`. */
function parseCron(expr: string, tz: string | undefined): Cron | string {
  if (typeof expr !== "string") return "invalid cron expression: not a string";
  const trimmed = expr.trim();
  if (trimmed === "") return "invalid cron expression: empty";
  if (trimmed.startsWith("@")) {
    if (!NICKNAMES.has(trimmed.toLowerCase())) {
      return `invalid cron expression: unsupported nickname ${trimmed} (use one of ${[...NICKNAMES].join(", ")})`;
    }
  } else {
    const fields = trimmed.split(/\s+/).length;
    if (fields !== 5 && fields !== 6) {
      return `invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week) or 6 with leading seconds, got ${fields}`;
    }
  }
  let cron: Cron;
  try {
    cron = newCron(trimmed, tz);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return `invalid cron expression: ${msg.replace(/^CronPattern:\s*/, "")}`;
  }
  // e.g. `0 0 30 2 *` parses but never fires. The zone does not matter for this check.
  if (cron.nextRun(NEVER_FIRES_REFERENCE) === null) {
    return "invalid cron expression: it never fires";
  }
  return cron;
}

/** null when valid, else a short human message, e.g. "invalid cron expression: ..." */
export function cronError(expr: string): string | null {
  const parsed = parseCron(expr, undefined);
  return typeof parsed === "string" ? parsed : null;
}

/** null when tz is a valid IANA zone name, else a message. */
export function timezoneError(tz: string): string | null {
  if (typeof tz !== "string" || tz.trim() === "") return "invalid time zone: empty";
  // Newer ICU builds accept raw offsets such as "+01:00"; those have no DST rules, so insist on names.
  if (/^[+-]/.test(tz)) return `invalid time zone: ${tz} (use an IANA zone name such as Europe/Berlin)`;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return null;
  } catch (e) {
    if (e instanceof RangeError) return `invalid time zone: ${tz} (use an IANA zone name such as Europe/Berlin)`;
    throw e;
  }
}

/** null when the schedule is usable, else a message. */
export function scheduleError(schedule: Schedule): string | null {
  if (schedule.kind === "every") {
    const n = schedule.everySeconds;
    if (!Number.isInteger(n) || n < 1) return `invalid interval: everySeconds must be a whole number >= 1, got ${n}`;
    return null;
  }
  return timezoneError(schedule.tz) ?? cronError(schedule.cron);
}

function compiled(expr: string, tz: string): Compiled {
  const key = `${expr}|${tz}`;
  const hit = compiledCache.get(key);
  if (hit) return hit;
  const tzErr = timezoneError(tz);
  if (tzErr) throw new RangeError(tzErr);
  const parsed = parseCron(expr, tz);
  if (typeof parsed === "string") throw new RangeError(parsed);
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.clear();
  const entry: Compiled = { cron: parsed, spans: [] };
  compiledCache.set(key, entry);
  return entry;
}

function everyMs(schedule: { everySeconds: number }): number {
  const n = schedule.everySeconds;
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`invalid interval: everySeconds must be a whole number >= 1, got ${n}`);
  }
  return n * 1000;
}

function ms(d: Date, name: string): number {
  const t = d instanceof Date ? d.getTime() : NaN;
  if (Number.isNaN(t)) throw new RangeError(`${name} must be a valid Date`);
  return t;
}

/** croner's reference for "strictly after t", clamped so it never searches before 1970. */
function nextRef(t: number): Date {
  return new Date(t < CRON_EPOCH_MS ? CRON_EPOCH_MS - 1000 : t);
}

function firstFireAfter(c: Compiled, t: number): number | null {
  return c.cron.nextRun(nextRef(t))?.getTime() ?? null;
}

/**
 * The fire times around `at`: prev = latest fire <= at, next = first fire > at (either null when
 * there is none). Remembers the last two complete spans per expression, so repeated pings in the
 * same period cost no croner work; croner is deterministic, so this changes no answer.
 */
function bracket(c: Compiled, at: number): { prev: number | null; next: number | null } {
  for (const s of c.spans) {
    if (s.prev <= at && at < s.next) return s;
  }
  if (at < CRON_EPOCH_MS) return { prev: null, next: firstFireAfter(c, at) };
  // previousRuns(ref) gives fire times < ref truncated to the second; fire times are whole
  // seconds, so "<= at" is "< floor(at) + 1 s".
  const prevRef = Math.floor(at / 1000) * 1000 + 1000;
  const found = c.cron.previousRuns(1, new Date(prevRef))[0]?.getTime() ?? null;
  const prev = found !== null && found >= CRON_EPOCH_MS ? found : null;
  const next = firstFireAfter(c, at);
  if (prev !== null && next !== null) {
    const span = { prev, next };
    c.spans.unshift(span);
    if (c.spans.length > 2) c.spans.length = 2;
    return span;
  }
  return { prev, next };
}

function cronPeriodMs(c: Compiled, at: number, b = bracket(c, at)): number {
  if (b.prev !== null && b.next !== null) return b.next - b.prev;
  if (b.prev === null && b.next !== null) {
    // Before the first fire time: use the first two.
    const second = firstFireAfter(c, b.next);
    if (second !== null) return second - b.next;
  }
  if (b.prev !== null && b.next === null) {
    // After the last fire time croner can represent: use the last two.
    const earlier = c.cron.previousRuns(1, new Date(b.prev))[0]?.getTime() ?? null;
    if (earlier !== null && earlier >= CRON_EPOCH_MS) return b.prev - earlier;
  }
  throw new RangeError(`schedule has fewer than two fire times around ${new Date(at).toISOString()}`);
}

/** Fire times strictly after `after`, ascending, n of them (fewer only if the schedule runs out). */
export function nextFireTimes(schedule: Schedule, after: Date, n: number): Date[] {
  const t = ms(after, "after");
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a whole number >= 0, got ${n}`);
  if (n === 0) return [];
  if (schedule.kind === "every") {
    const step = everyMs(schedule);
    const first = (Math.floor(t / step) + 1) * step;
    return Array.from({ length: n }, (_, i) => new Date(first + i * step));
  }
  const c = compiled(schedule.cron, schedule.tz);
  return c.cron.nextRuns(n, nextRef(t));
}

/** The latest fire time <= at (null if none, e.g. a cron that never fired before `at`). */
export function previousFireTime(schedule: Schedule, at: Date): Date | null {
  const t = ms(at, "at");
  if (schedule.kind === "every") {
    const step = everyMs(schedule);
    return new Date(Math.floor(t / step) * step);
  }
  const prev = bracket(compiled(schedule.cron, schedule.tz), t).prev;
  return prev === null ? null : new Date(prev);
}

/** Seconds between the fire time <= at and the next one after it (for "every": everySeconds). */
export function periodSecondsAt(schedule: Schedule, at: Date): number {
  const t = ms(at, "at");
  if (schedule.kind === "every") return everyMs(schedule) / 1000;
  return cronPeriodMs(compiled(schedule.cron, schedule.tz), t) / 1000;
}

function toleranceFromPeriodMs(periodMs: number): number {
  return Math.min(MAX_SLOT_TOLERANCE_MS, periodMs / 4);
}

/** How early a claim/ping may come and still count for the coming slot: min(60 s, period/4), in ms. */
export function slotToleranceMs(schedule: Schedule, at: Date): number {
  return toleranceFromPeriodMs(periodSecondsAt(schedule, at) * 1000);
}

/**
 * The slot (a fire time, UTC instant) a claim or start ping at `at` belongs to: the latest fire
 * time <= at + tolerance. A claim 20 s before 02:00 belongs to the 02:00 slot; a claim 5 minutes
 * late still belongs to the slot it is late for. null if the schedule has no fire time
 * <= at + tolerance.
 */
export function slotFor(schedule: Schedule, at: Date): Date | null {
  const t = ms(at, "at");
  if (schedule.kind === "every") {
    const step = everyMs(schedule);
    const target = t + toleranceFromPeriodMs(step);
    return new Date(Math.floor(target / step) * step);
  }
  const c = compiled(schedule.cron, schedule.tz);
  const b = bracket(c, t);
  const target = t + toleranceFromPeriodMs(cronPeriodMs(c, t, b));
  // Common case: not close enough to the next fire time to count for it.
  if (b.next === null || target < b.next) return b.prev === null ? null : new Date(b.prev);
  const prev = bracket(c, target).prev;
  return prev === null ? null : new Date(prev);
}

/** The first fire time strictly after `slot` (the slot that comes next). */
export function nextSlotAfter(schedule: Schedule, slot: Date): Date {
  const t = ms(slot, "slot");
  if (schedule.kind === "every") {
    const step = everyMs(schedule);
    return new Date((Math.floor(t / step) + 1) * step);
  }
  const next = bracket(compiled(schedule.cron, schedule.tz), t).next;
  if (next === null) throw new RangeError(`schedule has no fire time after ${new Date(t).toISOString()}`);
  return new Date(next);
}
