"use client";
// A form bound to a server action through useActionState. Field errors come back by field name and
// show next to the field (<Field>); a value shown once (a new API key, a webhook secret) comes back
// as `secret`. Submitting through startTransition keeps what was typed when the action refuses it
// (a plain form action would reset the form); a successful submit clears it.
import { createContext, startTransition, useActionState, useContext, useEffect, useRef } from "react";
import { CopyField } from "./copy-button";
import { inputClass } from "./styles";

import type { FormState } from "./form-state";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

const FormContext = createContext<{ fields: Record<string, string>; pending: boolean }>({ fields: {}, pending: false });

export function ActionForm({ action, children, className, testId, secretLabel }: {
  action: Action;
  children: React.ReactNode;
  className?: string;
  testId?: string;
  secretLabel?: string;
}) {
  const [state, dispatch, pending] = useActionState(action, {});
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.ok) form.current?.reset();
  }, [state]);
  return (
    <form
      ref={form}
      action={dispatch}
      noValidate
      data-testid={testId}
      className={className}
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
        startTransition(() => dispatch(data));
      }}
    >
      {state.error && (
        <p role="alert" data-testid="form-error" className="mb-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">{state.error}</p>
      )}
      {state.message && (
        <p role="status" data-testid="form-message" className="mb-3 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">{state.message}</p>
      )}
      {state.secret && (
        <div data-testid="form-secret" className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
          <p className="mb-2 font-medium">{secretLabel ?? "Copy this now: it is shown only once."}</p>
          <CopyField value={state.secret} testId="secret-value" />
        </div>
      )}
      <FormContext.Provider value={{ fields: state.fields ?? {}, pending }}>{children}</FormContext.Provider>
    </form>
  );
}

export function useFieldError(name: string): string | undefined {
  return useContext(FormContext).fields[name];
}

/** A labelled input (or any control passed as children) with its error underneath. */
export function Field({ name, label, hint, children, className, ...input }: {
  name: string;
  label: string;
  hint?: React.ReactNode;
  children?: React.ReactNode;
  className?: string;
} & React.InputHTMLAttributes<HTMLInputElement>) {
  const error = useFieldError(name);
  const id = `field-${name}`;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">{label}</label>
      {children ?? (
        <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} className={inputClass(Boolean(error))} {...input} />
      )}
      {hint && !error && <p className="mt-1 text-xs text-slate-500">{hint}</p>}
      {error && <p id={`${id}-error`} data-testid={`error-${name}`} className="mt-1 text-xs font-medium text-red-700">{error}</p>}
    </div>
  );
}


export function SubmitButton({ children, className }: { children: React.ReactNode; className?: string }) {
  const { pending } = useContext(FormContext);
  return (
    <button type="submit" disabled={pending} className={className ?? "rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-800 disabled:opacity-60"}>
      {pending ? "Working…" : children}
    </button>
  );
}
