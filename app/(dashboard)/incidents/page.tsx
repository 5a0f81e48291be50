import type { Metadata } from "next";
import Link from "next/link";
import { AutoRefresh } from "@/components/auto-refresh";
import { IncidentCard } from "@/components/incident-card";
import { PageHeader, Section } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { listIncidents } from "@/lib/server/read-incidents";
import { requireUser } from "../../_lib/auth";

export const metadata: Metadata = { title: "Incidents · Deadbolt" };

export default async function IncidentsPage({ searchParams }: { searchParams: Promise<{ cursor?: string }> }) {
  await requireUser();
  const { cursor } = await searchParams;
  const db = getDatabase();
  const [open, resolved] = await Promise.all([
    listIncidents(db, { status: "open", limit: 200 }),
    listIncidents(db, { status: "resolved", limit: 30, cursor: cursor || undefined }),
  ]);
  const now = new Date().toISOString();
  return (
    <>
      <AutoRefresh />
      <PageHeader title="Incidents" subtitle="Opened by the checker, notified once through the job's channels, resolved on recovery." />
      <Section title={`Open (${open.items.length}${open.nextCursor ? "+" : ""})`} testId="incidents-open">
        {open.items.length ? (
          <div className="space-y-2">{open.items.map((i) => <IncidentCard key={i.id} incident={i} now={now} />)}</div>
        ) : (
          <p className="text-sm text-emerald-800">Nothing is open.</p>
        )}
      </Section>
      <Section
        title="Resolved"
        testId="incidents-resolved"
        actions={
          <span className="flex gap-3 text-sm">
            {cursor && <Link href="/incidents" className="underline">Newest</Link>}
            {resolved.nextCursor && <Link href={`/incidents?cursor=${resolved.nextCursor}`} className="underline">Older →</Link>}
          </span>
        }
      >
        {resolved.items.length ? (
          <div className="space-y-2">{resolved.items.map((i) => <IncidentCard key={i.id} incident={i} now={now} />)}</div>
        ) : (
          <p className="text-sm text-slate-500">None yet.</p>
        )}
      </Section>
    </>
  );
}
