"use client";
// Add an email or webhook channel. A webhook's signing secret comes back once, to copy.
import { useState } from "react";
import { ActionForm, Field, SubmitButton } from "./action-form";
import { inputClass } from "./styles";
import type { FormState } from "./form-state";

export function ChannelForm({ action }: { action: (state: FormState, form: FormData) => Promise<FormState> }) {
  const [kind, setKind] = useState<"webhook" | "email">("webhook");
  return (
    <ActionForm action={action} testId="channel-form" className="grid grid-cols-1 gap-4 sm:grid-cols-2" secretLabel="The webhook's signing secret (X-Deadbolt-Signature): copy it now, it is shown only once.">
      <Field name="name" label="Name" placeholder="ops webhook" />
      <Field name="kind" label="Kind">
        <select id="field-kind" name="kind" value={kind} onChange={(e) => setKind(e.target.value as "webhook" | "email")} className={inputClass()}>
          <option value="webhook">Webhook (HTTP POST, signed JSON)</option>
          <option value="email">Email</option>
        </select>
      </Field>
      {kind === "webhook" ? (
        <>
          <Field name="url" label="URL" type="url" placeholder="https://hooks.example.com/deadbolt" className="sm:col-span-2" />
          <Field name="format" label="Format">
            <select id="field-format" name="format" defaultValue="json" className={inputClass()}>
              <option value="json">JSON (the alert as Deadbolt sends it)</option>
              <option value="slack">Slack-compatible ({"{text}"})</option>
            </select>
          </Field>
          <Field name="secret" label="Signing secret (optional)" placeholder="generated when empty" hint="At least 16 characters." />
        </>
      ) : (
        <Field name="address" label="Email address" type="email" placeholder="oncall@example.com" className="sm:col-span-2" />
      )}
      <Field name="remindEveryMinutes" label="Remind every (minutes, optional)" inputMode="numeric" placeholder="no reminders" hint="Repeat while an incident stays open (≥ 5)." />
      <div className="flex items-end sm:col-span-2">
        <SubmitButton>Add channel</SubmitButton>
      </div>
    </ActionForm>
  );
}

export function ChannelTestButton({ action, channelId }: { action: (state: FormState, form: FormData) => Promise<FormState>; channelId: string }) {
  return (
    <ActionForm action={action} testId="channel-test" className="flex flex-col items-start">
      <input type="hidden" name="id" value={channelId} />
      <SubmitButton className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-60">Send test</SubmitButton>
    </ActionForm>
  );
}
