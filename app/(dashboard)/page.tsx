import type { Metadata } from "next";
import Link from "next/link";
import { AutoRefresh } from "@/components/auto-refresh";
import { formatRelative, formatUtc } from "@/components/format";
import { buttonClass, PageHeader } from "@/components/page-header";
import { Sparkline } from "@/components/sparkline";
import { OutcomeBadge, StatusBadge } from "@/components/status-badge";
import { JOB_STATUSES, type JobStatus } from "@/lib/domain/job-status";
import { getDatabase } from "@/lib/server/db";
import { readOverview } from "@/lib/server/dashboard/jobs-overview";
import { requireUser } from "../_lib/auth";

export const metadata: Metadata = { title: "Jobs · Deadbolt" };

type Search = { q?: string; tag?: string; status?: string; page?: string; denied?: string; deleted?: string };

function href(base: Search, change: Partial<Search>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...base, ...change, denied: undefined, deleted: undefined })) if (v) params.set(k, v);
  const qs = params.toString();
  return qs ? `/?${qs}` : "/";
}

export default async function OverviewPage({ searchParams }: { searchParams: Promise<Search> }) {
  await requireUser();
  const search = await searchParams;
  const status = (JOB_STATUSES as readonly string[]).includes(search.status ?? "") ? (search.status as JobStatus) : undefined;
  const overview = await readOverview(getDatabase(), { q: search.q, tag: search.tag, status, page: Number(search.page) || 1 }, new Date());
  const current: Search = { q: search.q, tag: search.tag, status, page: undefined };
  const anyFilter = Boolean(search.q || search.tag);
  const filteredTotal = JOB_STATUSES.reduce((n, s) => n + overview.counts[s], 0);

  return (
    <>
      <AutoRefresh />
      <PageHeader
        title="Jobs"
        subtitle={`${overview.totalJobs.toLocaleString("en")} job${overview.totalJobs === 1 ? "" : "s"} · problems first · as of ${formatUtc(overview.now)}`}
        actions={<Link href="/jobs/new" className={buttonClass}>New job</Link>}
      />
      {search.denied === "admin" && <p role="alert" className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">That page is for administrators.</p>}

      {search.deleted && <p role="status" className="mb-4 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">Deleted job <span className="font-mono">{search.deleted}</span> with its history.</p>}

      {overview.totalJobs === 0 ? (
        <div className="rounded-xl border border-dashed border-slate-300 bg-white p-8 text-center">
          <p className="font-medium">No jobs yet.</p>
          <p className="mt-1 text-sm text-slate-600">
            <Link href="/jobs/new" className="underline">Create one here</Link>, or declare them as code with <code className="font-mono">PUT /api/v1/jobs/&#123;slug&#125;</code>.
          </p>
        </div>
      ) : (
        <>
          <form method="get" action="/" role="search" className="mb-3 flex flex-wrap items-end gap-2">
            {status && <input type="hidden" name="status" value={status} />}
            <label className="min-w-[12rem] flex-1">
              <span className="sr-only">Search by name</span>
              <input type="search" name="q" defaultValue={search.q} placeholder="Search by name or slug" className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm" />
            </label>
            <label>
              <span className="sr-only">Tag</span>
              <select name="tag" defaultValue={search.tag ?? ""} className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm">
                <option value="">All tags</option>
                {overview.tags.map((t) => (
                  <option key={t.tag} value={t.tag}>{t.tag} ({t.count})</option>
                ))}
              </select>
            </label>
            <button type="submit" className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium hover:bg-slate-50">Filter</button>
            {anyFilter && <Link href={href({ status }, {})} className="px-2 py-2 text-sm text-slate-600 underline">Clear</Link>}
          </form>

          <nav aria-label="Filter by status" className="mb-4 flex flex-wrap gap-1.5">
            <Link href={href(current, { status: undefined })} aria-current={!status ? "true" : undefined}
              className={`rounded-full px-3 py-1 text-sm ${!status ? "bg-slate-900 text-white" : "bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"}`}>
              all {filteredTotal}
            </Link>
            {JOB_STATUSES.map((s) => (
              <Link key={s} href={href(current, { status: s })} aria-current={status === s ? "true" : undefined} data-testid={`status-filter-${s}`}
                className={`rounded-full px-3 py-1 text-sm ${status === s ? "bg-slate-900 text-white" : "bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"}`}>
                {s} {overview.counts[s]}
              </Link>
            ))}
          </nav>

          {overview.rows.length === 0 ? (
            <p className="rounded-xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-600">No job matches.</p>
          ) : (
            <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm">
              <table className="w-full table-fixed text-sm" data-testid="jobs-table">
                <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="w-24 px-3 py-2">Status</th>
                    <th scope="col" className="px-3 py-2">Job</th>
                    <th scope="col" className="hidden w-48 px-3 py-2 lg:table-cell">Schedule</th>
                    <th scope="col" className="hidden w-40 px-3 py-2 sm:table-cell">Last run</th>
                    <th scope="col" className="hidden w-36 px-3 py-2 md:table-cell">Next</th>
                    <th scope="col" className="hidden w-32 px-3 py-2 md:table-cell">Recent runs</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {overview.rows.map((job) => {
                    const overdue = job.expectedAt !== null && job.expectedAt <= overview.now;
                    return (
                      <tr key={job.slug} data-testid="job-row" data-slug={job.slug} className="align-top hover:bg-slate-50">
                        <td className="px-3 py-2.5"><StatusBadge status={job.status} /></td>
                        <td className="min-w-0 px-3 py-2.5">
                          <Link href={`/jobs/${job.slug}`} className="block truncate font-medium text-slate-900 hover:underline">{job.name}</Link>
                          <div className="truncate font-mono text-xs text-slate-500">{job.slug}</div>
                          {job.tags.length > 0 && (
                            <div className="mt-1 flex flex-wrap gap-1">
                              {job.tags.map((t) => (
                                <Link key={t} href={href(current, { tag: t })} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-200">{t}</Link>
                              ))}
                            </div>
                          )}
                          <div className="mt-1 text-xs text-slate-500 sm:hidden">
                            {job.lastOutcome ? <OutcomeBadge outcome={job.lastOutcome} /> : "no finished run"} · {formatRelative(job.lastFinishedAt ?? job.lastStartedAt, overview.now)}
                          </div>
                          {job.openIncidents > 0 && <div className="mt-1 text-xs font-medium text-red-700">{job.openIncidents} open incident{job.openIncidents > 1 ? "s" : ""}</div>}
                        </td>
                        <td className="hidden px-3 py-2.5 text-slate-600 lg:table-cell">{job.schedule}</td>
                        <td className="hidden px-3 py-2.5 sm:table-cell">
                          {job.status === "running" ? (
                            <span className="text-sky-700">started {formatRelative(job.lastStartedAt, overview.now)}</span>
                          ) : job.lastFinishedAt ? (
                            <>
                              <OutcomeBadge outcome={job.lastOutcome} />
                              <div className="text-xs text-slate-500" title={formatUtc(job.lastFinishedAt)}>{formatRelative(job.lastFinishedAt, overview.now)}</div>
                            </>
                          ) : (
                            <span className="text-slate-400">never</span>
                          )}
                        </td>
                        <td className="hidden px-3 py-2.5 md:table-cell">
                          {overdue && job.expectedAt ? (
                            <span className="font-medium text-red-700" title={formatUtc(job.expectedAt)}>expected {formatRelative(job.expectedAt, overview.now)}</span>
                          ) : job.nextSlotAt ? (
                            <span title={formatUtc(job.nextSlotAt)}>{formatRelative(job.nextSlotAt, overview.now)}</span>
                          ) : (
                            <span className="text-slate-400">—</span>
                          )}
                        </td>
                        <td className="hidden px-3 py-2.5 md:table-cell"><Sparkline points={job.spark} /></td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}

          {overview.pages > 1 && (
            <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
              {overview.page > 1 ? <Link href={href(current, { page: String(overview.page - 1) })} className="underline">← Previous</Link> : <span />}
              <span className="text-slate-500">Page {overview.page} of {overview.pages} · {overview.matching.toLocaleString("en")} jobs</span>
              {overview.page < overview.pages ? <Link href={href(current, { page: String(overview.page + 1) })} className="underline">Next →</Link> : <span />}
            </nav>
          )}
        </>
      )}
    </>
  );
}
