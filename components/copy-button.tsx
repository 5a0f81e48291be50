"use client";
// Copies a value to the clipboard. navigator.clipboard needs a secure context (HTTPS or
// localhost); elsewhere the text is selected with the old execCommand fallback.
import { useState } from "react";
import { Icon } from "./icons";

export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      const area = document.createElement("textarea");
      area.value = value;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  }
  return (
    <button type="button" onClick={copy} className="inline-flex shrink-0 items-center gap-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50" aria-label={`${label}: ${value.length > 40 ? "value" : value}`}>
      <Icon name={copied ? "check" : "copy"} className="h-3.5 w-3.5" />
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </button>
  );
}

export function CopyField({ value, testId }: { value: string; testId?: string }) {
  return (
    <div className="flex items-center gap-2">
      <code data-testid={testId} className="min-w-0 flex-1 overflow-x-auto whitespace-nowrap rounded-md bg-slate-100 px-2 py-1 font-mono text-xs text-slate-800">{value}</code>
      <CopyButton value={value} />
    </div>
  );
}

export function CodeSnippet({ title, code }: { title: string; code: string }) {
  return (
    <div className="min-w-0">
      <div className="mb-1 flex items-center justify-between gap-2">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</span>
        <CopyButton value={code} />
      </div>
      <pre className="overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100">{code}</pre>
    </div>
  );
}
