"use client";
// A page that failed to render: say so plainly and offer a retry; the details are in the server log.
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6">
      <h1 className="text-lg font-semibold text-red-900">This page could not be shown.</h1>
      <p className="mt-1 text-sm text-red-800">
        The server failed while reading it{error.digest ? ` (error ${error.digest} in the server log)` : ""}. The API and the checker are separate and may be fine.
      </p>
      <button type="button" onClick={reset} className="mt-4 rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800">Try again</button>
    </div>
  );
}
