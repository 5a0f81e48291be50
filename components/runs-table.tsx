"use client";
// A job's run history. A row expands to its output tail, fetched only then (up to 100 KB a run:
// a page of them is never sent up front).
import { Fragment, useState } from "react";
import { formatDuration, formatRelative, formatUtc } from "./format";
import { OutcomeBadge } from "./status-badge";

export interface RunRow {
  id: string;
  slot: string | null;
  source: string;
  outcome: string;
  host: string | null;
  holder: string | null;
  fencingToken: number | null;
  exitCode: number | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  leaseLostAt: string | null;
}

export function RunsTable({ runs, now, loadOutput }: { runs: RunRow[]; now: string; loadOutput: (runId: string) => Promise<string | null> }) {
  const [open, setOpen] = useState<Record<string, { loading: boolean; output?: string | null; error?: string }>>({});

  async function toggle(id: string) {
    if (open[id]) {
      setOpen(({ [id]: _closed, ...rest }) => rest);
      return;
    }
    setOpen((s) => ({ ...s, [id]: { loading: true } }));
    try {
      const output = await loadOutput(id);
      setOpen((s) => ({ ...s, [id]: { loading: false, output } }));
    } catch {
      setOpen((s) => ({ ...s, [id]: { loading: false, error: "Could not load the output." } }));
    }
  }

  if (runs.length === 0) return <p className="text-sm text-slate-500">No runs yet.</p>;
  return (
    <div className="-mx-4 overflow-x-auto px-4">
      <table className="w-full min-w-[40rem] text-sm" data-testid="runs-table">
        <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-3">Outcome</th>
            <th scope="col" className="py-2 pr-3">Started</th>
            <th scope="col" className="py-2 pr-3">Slot</th>
            <th scope="col" className="py-2 pr-3">Host</th>
            <th scope="col" className="py-2 pr-3 text-right">Duration</th>
            <th scope="col" className="py-2 pr-3 text-right">Exit</th>
            <th scope="col" className="py-2"><span className="sr-only">Output</span></th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {runs.map((r) => {
            const state = open[r.id];
            return (
              <Fragment key={r.id}>
                <tr data-testid="run-row" data-run={r.id} data-outcome={r.outcome} className="align-top">
                  <td className="py-2 pr-3">
                    <OutcomeBadge outcome={r.outcome} />
                    {r.leaseLostAt && <div className="text-xs font-medium text-red-700">lease lost {formatRelative(r.leaseLostAt, now)}</div>}
                  </td>
                  <td className="whitespace-nowrap py-2 pr-3" title={formatUtc(r.startedAt)}>
                    {formatRelative(r.startedAt, now)}
                    <div className="text-xs text-slate-500">{formatUtc(r.startedAt)}</div>
                  </td>
                  <td className="whitespace-nowrap py-2 pr-3 font-mono text-xs">{r.slot ? formatUtc(r.slot) : "—"}</td>
                  <td className="max-w-[12rem] truncate py-2 pr-3" title={r.holder ?? r.host ?? undefined}>
                    {r.host ?? r.holder ?? <span className="text-slate-400">—</span>}
                    <div className="text-xs text-slate-500">{r.source === "claim" ? `claim${r.fencingToken !== null ? ` · fence ${r.fencingToken}` : ""}` : "ping"}</div>
                  </td>
                  <td className="whitespace-nowrap py-2 pr-3 text-right tabular-nums">{r.outcome === "running" ? `${formatDuration(new Date(now).getTime() - new Date(r.startedAt).getTime())}…` : formatDuration(r.durationMs)}</td>
                  <td className="py-2 pr-3 text-right font-mono">{r.exitCode ?? "—"}</td>
                  <td className="py-2 text-right">
                    <button type="button" onClick={() => toggle(r.id)} aria-expanded={Boolean(state)} className="rounded px-2 py-1 text-xs font-medium text-slate-700 underline hover:bg-slate-100">
                      {state ? "Hide output" : "Output"}
                    </button>
                  </td>
                </tr>
                {state && (
                  <tr data-testid="run-output-row">
                    <td colSpan={7} className="pb-3">
                      {state.loading ? (
                        <p className="text-xs text-slate-500">Loading…</p>
                      ) : state.error ? (
                        <p className="text-xs text-red-700">{state.error}</p>
                      ) : state.output ? (
                        <pre data-testid="run-output" className="max-h-96 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">{state.output}</pre>
                      ) : (
                        <p className="text-xs text-slate-500">This run sent no output.</p>
                      )}
                      <a href={`/runs/${r.id}`} className="mt-1 inline-block text-xs text-slate-600 underline">Pings and lease events of this run →</a>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
