import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AutoRefresh } from "@/components/auto-refresh";
import { ConfirmButton } from "@/components/confirm-button";
import { CodeSnippet, CopyField } from "@/components/copy-button";
import { Countdown } from "@/components/countdown";
import { DurationChart } from "@/components/duration-chart";
import { formatDuration, formatInZone, formatRelative, formatUtc } from "@/components/format";
import { HostTimeline } from "@/components/host-timeline";
import { IncidentCard } from "@/components/incident-card";
import { jobSnippets } from "@/components/job-snippets";
import { PageHeader, Section, secondaryButtonClass } from "@/components/page-header";
import { RunsTable } from "@/components/runs-table";
import { OutcomeBadge, StatusBadge } from "@/components/status-badge";
import { readConfig } from "@/lib/server/config";
import { getDatabase } from "@/lib/server/db";
import { readJobPage } from "@/lib/server/dashboard/job-page";
import { requireUser } from "../../../_lib/auth";
import { deleteJobAction, runOutputAction, setPausedAction } from "../actions";

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }): Promise<Metadata> {
  return { title: `${(await params).slug} · Deadbolt` };
}

const LEASE_EVENT_LABELS: Record<string, string> = {
  acquired: "acquired", takeover: "taken over", refused: "refused", renewed: "renewed", renew_refused: "renewal refused",
  released: "released", release_refused: "release refused", expired: "expired",
};

export default async function JobPage({ params, searchParams }: { params: Promise<{ slug: string }>; searchParams: Promise<{ cursor?: string }> }) {
  await requireUser();
  const { slug } = await params;
  const { cursor } = await searchParams;
  const config = readConfig();
  const page = await readJobPage(getDatabase(), slug, { cursor: cursor || undefined, baseUrl: config.baseUrl, now: new Date() });
  if (!page) notFound();
  const { job, now } = page;
  const zone = job.schedule.kind === "cron" ? job.timezone : "UTC";
  const snippets = jobSnippets(job, config.baseUrl);
  // The slot it waits for has come and gone (late, or missed until the checker says so).
  const overdue = !job.paused && job.expectedAt !== null && job.expectedAt <= now;

  return (
    <>
      <AutoRefresh />
      <PageHeader
        title={<span className="flex flex-wrap items-center gap-3">{job.name} <StatusBadge status={job.status} size="lg" /></span>}
        subtitle={
          <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-mono">{job.slug}</span>
            <span data-testid="job-schedule">{job.scheduleText}</span>
            {job.tags.map((t) => (
              <Link key={t} href={`/?tag=${encodeURIComponent(t)}`} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{t}</Link>
            ))}
          </span>
        }
        actions={
          <>
            <Link href={`/jobs/${job.slug}/edit`} className={secondaryButtonClass}>Edit</Link>
            {job.paused ? (
              <ConfirmButton key="resume" action={setPausedAction} hidden={{ slug: job.slug, paused: "false" }} label="Resume" confirmLabel="Resume watching"
                question="Resume? The schedule is watched again from the next slot." />
            ) : (
              <ConfirmButton key="pause" action={setPausedAction} hidden={{ slug: job.slug, paused: "true" }} label="Pause" confirmLabel="Pause alerts"
                question="Pause? Missed or failed runs raise no alerts while paused." />
            )}
            <ConfirmButton action={deleteJobAction} hidden={{ slug: job.slug }} label="Delete" confirmLabel={`Delete ${job.slug}`} tone="danger"
              question="Delete this job with all its runs, pings and incidents?" />
          </>
        }
      />

      {page.incidents.open.length > 0 && (
        <section className="mb-6 space-y-2" data-testid="open-incidents" aria-label="Open incidents">
          {page.incidents.open.map((i) => <IncidentCard key={i.id} incident={i} now={now} showJob={false} />)}
        </section>
      )}

      <div className="mb-6 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Card title="Last run">
          {job.status === "running" ? (
            <span className="text-sky-700">running, started {formatRelative(job.lastStartedAt, now)}</span>
          ) : job.lastFinishedAt ? (
            <><OutcomeBadge outcome={job.lastOutcome} /> <span className="text-slate-500" title={formatUtc(job.lastFinishedAt)}>{formatRelative(job.lastFinishedAt, now)}</span></>
          ) : (
            <span className="text-slate-500">none yet</span>
          )}
        </Card>
        <Card title={overdue ? "Expected" : "Next slot"}>
          {job.paused ? (
            <span className="text-slate-500">paused</span>
          ) : overdue && job.expectedAt ? (
            <span className="font-medium text-red-700" title={formatUtc(job.expectedAt)}>{formatRelative(job.expectedAt, now)} (grace {formatDuration(job.graceSeconds * 1000)})</span>
          ) : job.nextSlots[0] ? (
            <span title={formatUtc(job.nextSlots[0])}>{formatInZone(job.nextSlots[0], zone)} · {formatRelative(job.nextSlots[0], now)}</span>
          ) : (
            "—"
          )}
        </Card>
        <Card title="Limits">
          <span className="text-slate-700">
            grace {formatDuration(job.graceSeconds * 1000)} · lease TTL {formatDuration(job.leaseTtlSeconds * 1000)}
            {job.maxRuntimeSeconds ? ` · max ${formatDuration(job.maxRuntimeSeconds * 1000)}` : ""}
            {job.minRuntimeSeconds ? ` · min ${formatDuration(job.minRuntimeSeconds * 1000)}` : ""}
          </span>
        </Card>
        <Card title="Alerts">
          <span className="text-slate-700">
            after {job.failureThreshold} failure{job.failureThreshold > 1 ? "s" : ""}, resolved after {job.recoveryThreshold} good run{job.recoveryThreshold > 1 ? "s" : ""}
            {" · "}
            {job.channels.length ? job.channels.map((c) => c.name).join(", ") : <span className="text-amber-800">no channel</span>}
          </span>
        </Card>
      </div>

      <Section title="Connect the job" testId="connect">
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <div className="min-w-0 space-y-3">
            <div>
              <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Ping URL</p>
              <CopyField value={job.pingUrl} testId="ping-url" />
              <p className="mt-1 text-xs text-slate-500">Append <code>/start</code>, <code>/fail</code>, <code>/&lt;exit code&gt;</code> or <code>/log</code>; <code>?rid=</code> tells concurrent runs apart. The key in it is a secret.</p>
            </div>
            <div>
              <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Lease name</p>
              <CopyField value={job.leaseName} testId="lease-name" />
            </div>
            {job.nextSlots.length > 0 && (
              <div>
                <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Next fire times ({zone})</p>
                <ol className="space-y-0.5 font-mono text-xs" data-testid="job-next-fire-times">
                  {job.nextSlots.map((t) => <li key={t}>{formatInZone(t, zone)}</li>)}
                </ol>
              </div>
            )}
          </div>
          <div className="min-w-0 space-y-3">
            <CodeSnippet title="crontab (deadbolt exec)" code={snippets.crontab} />
            <details>
              <summary className="cursor-pointer text-sm font-medium text-slate-700">curl</summary>
              <div className="mt-2"><CodeSnippet title="curl" code={snippets.curl} /></div>
            </details>
            <details>
              <summary className="cursor-pointer text-sm font-medium text-slate-700">PHP</summary>
              <div className="mt-2"><CodeSnippet title="PHP" code={snippets.php} /></div>
            </details>
          </div>
        </div>
      </Section>

      <Section title="Durations">
        <DurationChart points={page.chart} leaseTtlSeconds={job.leaseTtlSeconds} maxRuntimeSeconds={job.maxRuntimeSeconds} minRuntimeSeconds={job.minRuntimeSeconds} />
      </Section>

      <Section title="Hosts">
        <HostTimeline {...page.timeline} />
      </Section>

      <Section
        title="Run history"
        testId="run-history"
        actions={
          <span className="flex gap-3 text-sm">
            {page.runs.cursor && <Link href={`/jobs/${job.slug}`} className="underline">Newest</Link>}
            {page.runs.nextCursor && <Link href={`/jobs/${job.slug}?cursor=${page.runs.nextCursor}`} className="underline" data-testid="older-runs">Older →</Link>}
          </span>
        }
      >
        <RunsTable runs={page.runs.items} now={now} loadOutput={runOutputAction} />
      </Section>

      <Section title="Lease" testId="lease">
        {page.lease ? (
          <>
            <p className="mb-3 text-sm">
              {page.lease.state === "held" ? (
                <>Held by <b>{page.lease.holder ?? "(unnamed holder)"}</b> · fencing token {page.lease.fencingToken} · expires in <Countdown until={page.lease.expiresAt} serverNow={now} /></>
              ) : (
                <>Free · last fencing token {page.lease.fencingToken}</>
              )}
            </p>
            <div className="-mx-4 overflow-x-auto px-4">
              <table className="w-full min-w-[32rem] text-sm">
                <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                  <tr><th className="py-1 pr-3">Event</th><th className="py-1 pr-3">Holder</th><th className="py-1 pr-3">Fence</th><th className="py-1 pr-3">When</th><th className="py-1">Detail</th></tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {page.lease.events.map((e) => (
                    <tr key={e.id} className={e.kind === "takeover" || e.kind === "expired" ? "text-red-800" : ""}>
                      <td className="py-1 pr-3 font-medium">{LEASE_EVENT_LABELS[e.kind] ?? e.kind}</td>
                      <td className="py-1 pr-3">{e.holder ?? "—"}</td>
                      <td className="py-1 pr-3 font-mono">{e.fencingToken ?? "—"}</td>
                      <td className="whitespace-nowrap py-1 pr-3" title={formatUtc(e.at)}>{formatRelative(e.at, now)}</td>
                      <td className="py-1 text-xs text-slate-600">{e.detail ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : (
          <p className="text-sm text-slate-500">No run has taken this job&apos;s lease yet (ping-only jobs never do).</p>
        )}
      </Section>

      <Section title="Past incidents">
        {page.incidents.past.length ? (
          <div className="space-y-2">{page.incidents.past.map((i) => <IncidentCard key={i.id} incident={i} now={now} showJob={false} />)}</div>
        ) : (
          <p className="text-sm text-slate-500">None.</p>
        )}
      </Section>
    </>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-3 shadow-sm">
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</p>
      <div className="mt-1 text-sm">{children}</div>
    </div>
  );
}
