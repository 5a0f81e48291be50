"use client";
// A destructive or disruptive button that asks first, in the page (no browser dialog): the first
// click shows what will happen and a second, explicit button does it.
import { useState } from "react";
import { useFormStatus } from "react-dom";

function Submit({ label, tone }: { label: string; tone: "danger" | "neutral" }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} className={`rounded-md px-3 py-1.5 text-sm font-medium text-white disabled:opacity-60 ${tone === "danger" ? "bg-red-600 hover:bg-red-700" : "bg-slate-800 hover:bg-slate-900"}`}>
      {pending ? "Working…" : label}
    </button>
  );
}

export function ConfirmButton({ action, label, confirmLabel, question, tone = "neutral", hidden }: {
  action: (form: FormData) => void | Promise<void>;
  label: string;
  confirmLabel: string;
  question: string;
  tone?: "danger" | "neutral";
  hidden?: Record<string, string>;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)} className={`rounded-md border px-3 py-1.5 text-sm font-medium ${tone === "danger" ? "border-red-300 bg-white text-red-700 hover:bg-red-50" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}>
        {label}
      </button>
    );
  }
  return (
    <form action={action} role="alertdialog" aria-label={question} className="flex flex-wrap items-center gap-2 rounded-md border border-slate-300 bg-white p-2 shadow-sm">
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <span className="text-sm text-slate-700">{question}</span>
      <Submit label={confirmLabel} tone={tone} />
      <button type="button" onClick={() => setAsking(false)} className="rounded-md px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100">Cancel</button>
    </form>
  );
}
