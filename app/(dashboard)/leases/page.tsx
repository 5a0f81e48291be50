import type { Metadata } from "next";
import Link from "next/link";
import { AutoRefresh } from "@/components/auto-refresh";
import { Countdown } from "@/components/countdown";
import { formatRelative, formatUtc } from "@/components/format";
import { Icon } from "@/components/icons";
import { PageHeader, Section } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { readLeasesPage } from "@/lib/server/dashboard/leases-page";
import { requireUser } from "../../_lib/auth";

export const metadata: Metadata = { title: "Leases · Deadbolt" };

function leaseLink(name: string) {
  return name.startsWith("job:") ? <Link href={`/jobs/${name.slice(4)}`} className="underline">{name}</Link> : name;
}

export default async function LeasesPage({ searchParams }: { searchParams: Promise<{ cursor?: string }> }) {
  await requireUser();
  const { cursor } = await searchParams;
  const page = await readLeasesPage(getDatabase(), { cursor: cursor || undefined, now: new Date() });
  const held = page.leases.items.filter((l) => l.state === "held");
  return (
    <>
      <AutoRefresh seconds={10} />
      <PageHeader title="Leases" subtitle={`${held.length} held of ${page.leases.items.length} shown · a holder that stops renewing loses its lease when the TTL runs out.`} />
      <Section title="All leases" testId="leases">
        {page.leases.items.length === 0 ? (
          <p className="text-sm text-slate-500">No lease has been taken yet.</p>
        ) : (
          <div className="-mx-4 overflow-x-auto px-4">
            <table className="w-full min-w-[36rem] text-sm">
              <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                <tr><th className="py-2 pr-3">Lease</th><th className="py-2 pr-3">State</th><th className="py-2 pr-3">Holder</th><th className="py-2 pr-3">Expires in</th><th className="py-2 pr-3">Fence</th><th className="py-2">TTL</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {page.leases.items.map((l) => (
                  <tr key={l.name} data-testid="lease-row" data-lease={l.name} data-state={l.state}>
                    <td className="py-2 pr-3 font-mono text-xs">{leaseLink(l.name)}</td>
                    <td className="py-2 pr-3">
                      <span className={`inline-flex items-center gap-1 font-medium ${l.state === "held" ? "text-sky-800" : "text-slate-500"}`}>
                        <Icon name={l.state === "held" ? "play" : "minus"} className="h-3.5 w-3.5" />{l.state}
                      </span>
                      {l.minHoldUntil && <div className="text-xs text-slate-500">kept until {formatUtc(l.minHoldUntil)}</div>}
                    </td>
                    <td className="py-2 pr-3">{l.holder ?? "—"}</td>
                    <td className="py-2 pr-3" title={formatUtc(l.expiresAt)}>{l.state === "held" ? <Countdown until={l.expiresAt} serverNow={page.now} /> : "—"}</td>
                    <td className="py-2 pr-3 font-mono">{l.fencingToken}</td>
                    <td className="py-2">{l.ttlSeconds ? `${l.ttlSeconds} s` : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {page.leases.nextCursor && <Link href={`/leases?cursor=${encodeURIComponent(page.leases.nextCursor)}`} className="mt-3 inline-block text-sm underline">More →</Link>}
      </Section>
      <Section title="Recent takeovers and expiries" testId="takeovers">
        {page.takeovers.length === 0 ? (
          <p className="text-sm text-slate-500">None recently: every holder released or renewed in time.</p>
        ) : (
          <ul className="space-y-1 text-sm">
            {page.takeovers.map((e) => (
              <li key={e.id} className="flex flex-wrap gap-x-3">
                <span className="font-medium text-red-800">{e.kind === "takeover" ? "taken over" : "expired"}</span>
                <span className="font-mono text-xs">{leaseLink(e.leaseName)}</span>
                <span>{e.holder ?? ""}</span>
                {e.fencingToken !== null && <span className="font-mono text-xs">fence {e.fencingToken}</span>}
                <span className="text-slate-500" title={formatUtc(e.at)}>{formatRelative(e.at, page.now)}</span>
                {e.detail && <span className="text-xs text-slate-600">{e.detail}</span>}
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
