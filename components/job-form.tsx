"use client";
// Create / edit a job. The schedule is previewed live in the browser with the same code the server
// uses (lib/domain/schedule.ts runs croner, which works in browsers): the schedule in words and its
// next five fire times in the job's zone. The server validates again with the API's contract and
// its messages come back next to the fields.
import { useEffect, useMemo, useState } from "react";
import { describeSchedule, describeSeconds } from "@/lib/domain/describe-schedule";
import { cronError, nextFireTimes, timezoneError, type Schedule } from "@/lib/domain/schedule";
import { ActionForm, SubmitButton, useFieldError } from "./action-form";
import { inputClass } from "./styles";
import { formatInZone, formatRelative } from "./format";
import type { FormState } from "./form-state";

export interface JobFormValues {
  slug: string;
  name: string;
  tags: string;
  scheduleKind: "cron" | "every";
  cron: string;
  tz: string;
  everyValue: string;
  everyUnit: "seconds" | "minutes" | "hours" | "days";
  graceSeconds: string;
  minRuntimeSeconds: string;
  maxRuntimeSeconds: string;
  leaseTtlSeconds: string;
  failureThreshold: string;
  recoveryThreshold: string;
  channelIds: string[];
}

const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;

function ErrorText({ name, id }: { name: string; id: string }) {
  const error = useFieldError(name);
  return error ? <p id={id} data-testid={`error-${name}`} className="mt-1 text-xs font-medium text-red-700">{error}</p> : null;
}

function Label({ htmlFor, children }: { htmlFor: string; children: React.ReactNode }) {
  return <label htmlFor={htmlFor} className="block text-sm font-medium text-slate-700">{children}</label>;
}

function NumberField({ name, label, value, onChange, hint, placeholder }: { name: keyof JobFormValues; label: string; value: string; onChange: (v: string) => void; hint?: string; placeholder?: string }) {
  const error = useFieldError(name);
  const seconds = /^\d+$/.test(value) ? Number(value) : null;
  return (
    <div>
      <Label htmlFor={`field-${name}`}>{label}</Label>
      <input id={`field-${name}`} name={name} inputMode="numeric" value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined} aria-describedby={`${name}-help`} className={inputClass(Boolean(error))} />
      <ErrorText name={name} id={`${name}-error`} />
      {!error && <p id={`${name}-help`} className="mt-1 text-xs text-slate-500">{seconds !== null && name.endsWith("Seconds") ? `${describeSeconds(seconds)}. ` : ""}{hint}</p>}
    </div>
  );
}

function SchedulePreview({ values }: { values: JobFormValues }) {
  // The browser's clock, for a preview only: computed after mount so server and client HTML agree.
  const [now, setNow] = useState<Date | null>(null);
  useEffect(() => {
    setNow(new Date());
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const preview = useMemo(() => {
    let schedule: Schedule;
    if (values.scheduleKind === "cron") {
      const error = timezoneError(values.tz) ?? cronError(values.cron);
      if (error) return { error };
      schedule = { kind: "cron", cron: values.cron.trim(), tz: values.tz };
    } else {
      if (!/^\d+$/.test(values.everyValue) || Number(values.everyValue) < 1) return { error: "the interval must be a whole number ≥ 1" };
      schedule = { kind: "every", everySeconds: Number(values.everyValue) * UNIT_SECONDS[values.everyUnit] };
    }
    try {
      return { text: describeSchedule(schedule), times: now ? nextFireTimes(schedule, now, 5).map((d) => d.toISOString()) : [] };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }, [values.scheduleKind, values.cron, values.tz, values.everyValue, values.everyUnit, now]);
  const zone = values.scheduleKind === "cron" ? values.tz : "UTC";
  return (
    <div data-testid="schedule-preview" aria-live="polite" className="rounded-lg border border-slate-200 bg-slate-50 p-3 text-sm">
      {"error" in preview ? (
        <p data-testid="preview-error" className="text-red-700">{preview.error}</p>
      ) : (
        <>
          <p className="font-medium" data-testid="schedule-text">{preview.text}</p>
          <p className="mt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Next five fire times ({zone})</p>
          <ol className="mt-1 space-y-0.5 font-mono text-xs" data-testid="next-fire-times">
            {preview.times.map((t) => (
              <li key={t}>{formatInZone(t, zone)} <span className="text-slate-500">· {now ? formatRelative(t, now.toISOString()) : ""}</span></li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

function JobFields({ mode, initial, channels, timezones }: { mode: "create" | "edit"; initial: JobFormValues; channels: { id: string; name: string; kind: string }[]; timezones: string[] }) {
  const [v, setV] = useState(initial);
  const set = <K extends keyof JobFormValues>(key: K) => (value: JobFormValues[K]) => setV((old) => ({ ...old, [key]: value }));
  const slugError = useFieldError("slug");
  const cronErr = useFieldError("schedule.cron");
  const tzErr = useFieldError("schedule.tz");
  const everyErr = useFieldError("schedule.every");
  const zones = timezones.includes(v.tz) ? timezones : [v.tz, ...timezones];

  return (
    <div className="space-y-6">
      <fieldset className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <legend className="mb-2 text-base font-semibold">Job</legend>
        {mode === "create" ? (
          <div>
            <Label htmlFor="field-slug">Slug</Label>
            <input id="field-slug" name="slug" value={v.slug} onChange={(e) => set("slug")(e.target.value)} autoCapitalize="none" spellCheck={false}
              placeholder="billing-charge" aria-invalid={slugError ? true : undefined} className={`${inputClass(Boolean(slugError))} font-mono`} />
            <ErrorText name="slug" id="slug-error" />
            {!slugError && <p className="mt-1 text-xs text-slate-500">Lowercase letters, digits, “.”, “_”, “-”. Used in URLs and by <code>deadbolt exec --job</code>.</p>}
          </div>
        ) : (
          <div>
            <span className="block text-sm font-medium text-slate-700">Slug</span>
            <p className="mt-1 rounded-md bg-slate-100 px-3 py-2 font-mono text-sm">{v.slug}</p>
          </div>
        )}
        <div>
          <Label htmlFor="field-name">Name</Label>
          <input id="field-name" name="name" value={v.name} onChange={(e) => set("name")(e.target.value)} placeholder="Charge customers" className={inputClass(Boolean(useFieldError("name")))} />
          <ErrorText name="name" id="name-error" />
        </div>
        <div className="sm:col-span-2">
          <Label htmlFor="field-tags">Tags</Label>
          <input id="field-tags" name="tags" value={v.tags} onChange={(e) => set("tags")(e.target.value)} placeholder="billing nightly" className={inputClass(Boolean(useFieldError("tags")))} />
          <ErrorText name="tags" id="tags-error" />
          <p className="mt-1 text-xs text-slate-500">Separated by spaces or commas.</p>
        </div>
      </fieldset>

      <fieldset className="space-y-3">
        <legend className="mb-2 text-base font-semibold">Schedule</legend>
        <div className="flex gap-4 text-sm" role="radiogroup" aria-label="Kind of schedule">
          <label className="flex items-center gap-2">
            <input type="radio" name="scheduleKind" value="cron" checked={v.scheduleKind === "cron"} onChange={() => set("scheduleKind")("cron")} /> Cron
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="scheduleKind" value="every" checked={v.scheduleKind === "every"} onChange={() => set("scheduleKind")("every")} /> Fixed interval
          </label>
        </div>
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <div className="space-y-3">
            {v.scheduleKind === "cron" ? (
              <>
                <div>
                  <Label htmlFor="field-cron">Cron expression</Label>
                  <input id="field-cron" name="cron" value={v.cron} onChange={(e) => set("cron")(e.target.value)} spellCheck={false} autoCapitalize="none"
                    placeholder="30 2 * * *" aria-invalid={cronErr ? true : undefined} className={`${inputClass(Boolean(cronErr))} font-mono`} />
                  <ErrorText name="schedule.cron" id="cron-error" />
                  {!cronErr && <p className="mt-1 text-xs text-slate-500">minute hour day-of-month month day-of-week (an optional leading seconds field), or @daily, @hourly…</p>}
                </div>
                <div>
                  <Label htmlFor="field-tz">Time zone</Label>
                  <select id="field-tz" name="tz" value={v.tz} onChange={(e) => set("tz")(e.target.value)} aria-invalid={tzErr ? true : undefined} className={inputClass(Boolean(tzErr))}>
                    {zones.map((z) => (
                      <option key={z} value={z}>{z}</option>
                    ))}
                  </select>
                  <ErrorText name="schedule.tz" id="tz-error" />
                </div>
              </>
            ) : (
              <div>
                <Label htmlFor="field-everyValue">Every</Label>
                <div className="flex gap-2">
                  <input id="field-everyValue" name="everyValue" inputMode="numeric" value={v.everyValue} onChange={(e) => set("everyValue")(e.target.value)}
                    aria-invalid={everyErr ? true : undefined} className={`${inputClass(Boolean(everyErr))} w-28`} />
                  <select name="everyUnit" aria-label="Unit" value={v.everyUnit} onChange={(e) => set("everyUnit")(e.target.value as JobFormValues["everyUnit"])} className={`${inputClass()} w-36`}>
                    {Object.keys(UNIT_SECONDS).map((u) => (
                      <option key={u} value={u}>{u}</option>
                    ))}
                  </select>
                </div>
                <ErrorText name="schedule.every" id="every-error" />
                {!everyErr && <p className="mt-1 text-xs text-slate-500">Slots are the UTC multiples of the interval: every server computes the same ones.</p>}
              </div>
            )}
            <ErrorText name="schedule" id="schedule-error" />
          </div>
          <SchedulePreview values={v} />
        </div>
      </fieldset>

      <fieldset className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <legend className="mb-2 text-base font-semibold">Limits</legend>
        <NumberField name="graceSeconds" label="Grace (s)" value={v.graceSeconds} onChange={set("graceSeconds")} hint="How late a start may be before it is missed." />
        <NumberField name="minRuntimeSeconds" label="Min runtime (s)" value={v.minRuntimeSeconds} onChange={set("minRuntimeSeconds")} placeholder="none" hint="Faster is suspicious." />
        <NumberField name="maxRuntimeSeconds" label="Max runtime (s)" value={v.maxRuntimeSeconds} onChange={set("maxRuntimeSeconds")} placeholder="none" hint="Longer is an overrun." />
        <NumberField name="leaseTtlSeconds" label="Lease TTL (s)" value={v.leaseTtlSeconds} onChange={set("leaseTtlSeconds")} hint="A crashed holder frees the job after this." />
      </fieldset>

      <fieldset className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <legend className="mb-2 text-base font-semibold">Alerting</legend>
        <NumberField name="failureThreshold" label="Failures before alerting" value={v.failureThreshold} onChange={set("failureThreshold")} hint="Consecutive failed runs." />
        <NumberField name="recoveryThreshold" label="Good runs to resolve" value={v.recoveryThreshold} onChange={set("recoveryThreshold")} hint="Consecutive good runs." />
        <div className="sm:col-span-2">
          <span className="block text-sm font-medium text-slate-700">Channels</span>
          {channels.length === 0 ? (
            <p className="mt-1 text-sm text-slate-500">No channels yet: add one on the <a href="/channels" className="underline">Channels</a> page.</p>
          ) : (
            <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
              {channels.map((c) => (
                <label key={c.id} className="flex items-center gap-2 text-sm">
                  <input type="checkbox" name="channelIds" value={c.id} checked={v.channelIds.includes(c.id)}
                    onChange={(e) => set("channelIds")(e.target.checked ? [...v.channelIds, c.id] : v.channelIds.filter((id) => id !== c.id))} />
                  {c.name} <span className="text-xs text-slate-500">({c.kind})</span>
                </label>
              ))}
            </div>
          )}
          <ErrorText name="channelIds" id="channels-error" />
        </div>
      </fieldset>

      <div className="flex items-center gap-3">
        <SubmitButton>{mode === "create" ? "Create job" : "Save changes"}</SubmitButton>
        <a href={mode === "create" ? "/" : `/jobs/${v.slug}`} className="text-sm text-slate-600 underline">Cancel</a>
      </div>
    </div>
  );
}

export function JobForm(props: { mode: "create" | "edit"; initial: JobFormValues; channels: { id: string; name: string; kind: string }[]; timezones: string[]; action: (state: FormState, form: FormData) => Promise<FormState> }) {
  return (
    <ActionForm action={props.action} testId="job-form" className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <JobFields mode={props.mode} initial={props.initial} channels={props.channels} timezones={props.timezones} />
    </ActionForm>
  );
}
