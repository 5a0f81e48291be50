import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-slate-600">There is nothing here. The job may have been deleted or renamed.</p>
      <Link href="/" className="mt-4 inline-block underline">Back to the jobs</Link>
    </main>
  );
}
