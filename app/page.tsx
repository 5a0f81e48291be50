import { getDatabase } from "@/lib/server/db";
import { countJobs } from "@/lib/server/read-jobs";

// Rendered per request: the numbers come from the live ledger.
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const db = getDatabase();
  const jobs = await countJobs(db);
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-semibold">Deadbolt</h1>
      <p className="mt-2 text-slate-600">Scheduled jobs that run once across a fleet, and tell you when they did not.</p>
      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-lg border border-slate-200 bg-white p-4">
        <dt className="text-slate-500">Jobs</dt>
        <dd data-testid="job-count" className="font-mono">{jobs}</dd>
        <dt className="text-slate-500">Database</dt>
        <dd className="font-mono">{db.dialect}</dd>
      </dl>
      <p className="mt-6 text-sm text-slate-500">
        The dashboard is on its way. Meanwhile the API is at <code>/api/v1</code>; its OpenAPI document is at{" "}
        <a className="underline" href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
      </p>
    </main>
  );
}
