// Class names shared by server and client components (a "use client" module cannot export
// plain functions to server components).
export const inputClass = (invalid = false) =>
  `mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 ${invalid ? "border-red-400 focus:ring-red-300" : "border-slate-300 focus:border-slate-500 focus:ring-slate-300"}`;
