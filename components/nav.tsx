"use client";
// The top bar: sections, who is signed in, sign out. On a phone the links scroll sideways.
import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Jobs", match: (p: string) => p === "/" || p.startsWith("/jobs") || p.startsWith("/runs") },
  { href: "/incidents", label: "Incidents", match: (p: string) => p.startsWith("/incidents") },
  { href: "/leases", label: "Leases", match: (p: string) => p.startsWith("/leases") },
  { href: "/channels", label: "Channels", match: (p: string) => p.startsWith("/channels") },
];
const ADMIN_LINKS = [
  { href: "/settings/api-keys", label: "API keys", match: (p: string) => p.startsWith("/settings/api-keys") },
  { href: "/settings/users", label: "Users", match: (p: string) => p.startsWith("/settings/users") },
];

export function Nav({ email, admin, signOut, openIncidents }: { email: string; admin: boolean; signOut: () => Promise<void>; openIncidents: number }) {
  const pathname = usePathname();
  const links = admin ? [...LINKS, ...ADMIN_LINKS] : LINKS;
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight">
          <svg viewBox="0 0 24 24" className="h-6 w-6" aria-hidden="true">
            <rect x="4" y="10" width="16" height="11" rx="2" fill="currentColor" />
            <path d="M8 10V7a4 4 0 0 1 8 0v3" fill="none" stroke="currentColor" strokeWidth="2.2" />
            <rect x="11" y="13.5" width="2" height="4" rx="1" fill="white" />
          </svg>
          Deadbolt
        </Link>
        <nav aria-label="Sections" className="order-3 -mx-4 flex w-[calc(100%+2rem)] gap-1 overflow-x-auto px-4 sm:order-none sm:mx-0 sm:w-auto sm:px-0">
          {links.map((l) => {
            const active = l.match(pathname);
            return (
              <Link key={l.href} href={l.href} aria-current={active ? "page" : undefined}
                className={`whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium ${active ? "bg-slate-900 text-white" : "text-slate-600 hover:bg-slate-100"}`}>
                {l.label}
                {l.href === "/incidents" && openIncidents > 0 && (
                  <span data-testid="nav-open-incidents" className={`ml-1.5 rounded-full px-1.5 text-xs ${active ? "bg-white text-red-700" : "bg-red-600 text-white"}`}>{openIncidents}</span>
                )}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span className="hidden max-w-[14rem] truncate text-slate-500 md:inline" title={email}>{email}</span>
          <form action={signOut}>
            <button type="submit" className="rounded-md border border-slate-300 px-3 py-1.5 font-medium text-slate-700 hover:bg-slate-50">Sign out</button>
          </form>
        </div>
      </div>
    </header>
  );
}
