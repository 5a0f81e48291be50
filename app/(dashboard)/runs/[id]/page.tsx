import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatDuration, formatUtc } from "@/components/format";
import { PageHeader, Section } from "@/components/page-header";
import { OutcomeBadge } from "@/components/status-badge";
import { AppError } from "@/lib/contracts/errors";
import { getDatabase } from "@/lib/server/db";
import { getRunOrThrow } from "@/lib/server/read-runs";
import { requireUser } from "../../../_lib/auth";

export const metadata: Metadata = { title: "Run · Deadbolt" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  const { id } = await params;
  const run = await getRunOrThrow(getDatabase(), id).catch((error) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  const facts: [string, React.ReactNode][] = [
    ["Outcome", <OutcomeBadge key="o" outcome={run.outcome} />],
    ["Slot", formatUtc(run.slot)],
    ["Started", formatUtc(run.startedAt)],
    ["Finished", formatUtc(run.finishedAt)],
    ["Duration", formatDuration(run.durationMs)],
    ["Exit code", run.exitCode ?? "—"],
    ["Host / holder", run.host ?? run.holder ?? "—"],
    ["Reported by", run.source === "claim" ? "run claim (lease API, CLI, SDK)" : "ping URL"],
    ["Fencing token", run.fencingToken ?? "—"],
    ["Idempotency key", run.idempotencyKey ?? "—"],
    ["Lease expires", formatUtc(run.leaseExpiresAt)],
    ["Lease lost", formatUtc(run.leaseLostAt)],
  ];
  return (
    <>
      <PageHeader title={<>Run of <Link href={`/jobs/${run.job}`} className="underline">{run.job}</Link></>} subtitle={<span className="font-mono">{run.id}</span>} />
      <Section title="Facts">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
          {facts.map(([k, v]) => (
            <div key={k} className="flex justify-between gap-3 border-b border-slate-100 pb-1">
              <dt className="text-slate-500">{k}</dt>
              <dd className="break-all text-right font-mono text-xs sm:text-sm">{v}</dd>
            </div>
          ))}
        </dl>
      </Section>
      <Section title="Output (last 100 KB)">
        {run.output ? <pre className="max-h-[32rem] overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">{run.output}</pre> : <p className="text-sm text-slate-500">No output.</p>}
      </Section>
      <Section title="Pings">
        {run.pings.length ? (
          <ul className="space-y-1 text-sm">
            {run.pings.map((p) => (
              <li key={p.id} className="flex flex-wrap gap-x-3">
                <span className="font-medium">{p.kind}{p.exitCode !== null ? ` ${p.exitCode}` : ""}</span>
                <span className="text-slate-500">{formatUtc(p.receivedAt)}</span>
                <span>{p.method} from {p.sourceIp ?? "?"}</span>
                <span className="text-slate-500">{p.bodyBytes} bytes</span>
              </li>
            ))}
          </ul>
        ) : <p className="text-sm text-slate-500">None.</p>}
      </Section>
      <Section title="Lease events">
        {run.leaseEvents.length ? (
          <ul className="space-y-1 text-sm">
            {run.leaseEvents.map((e) => (
              <li key={e.id} className="flex flex-wrap gap-x-3">
                <span className="font-medium">{e.kind}</span>
                <span className="text-slate-500">{formatUtc(e.at)}</span>
                <span>{e.holder ?? ""}</span>
                {e.fencingToken !== null && <span className="font-mono">fence {e.fencingToken}</span>}
                {e.detail && <span className="text-slate-600">{e.detail}</span>}
              </li>
            ))}
          </ul>
        ) : <p className="text-sm text-slate-500">None.</p>}
      </Section>
    </>
  );
}
