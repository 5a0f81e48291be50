export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center px-4 pt-16 sm:pt-24">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center gap-2">
          <Logo />
          <span className="text-xl font-semibold tracking-tight">Deadbolt</span>
        </div>
        {children}
      </div>
    </main>
  );
}

function Logo() {
  return (
    <svg viewBox="0 0 24 24" className="h-7 w-7 text-slate-900" aria-hidden="true">
      <rect x="4" y="10" width="16" height="11" rx="2" fill="currentColor" />
      <path d="M8 10V7a4 4 0 0 1 8 0v3" fill="none" stroke="currentColor" strokeWidth="2.2" />
      <rect x="11" y="13.5" width="2" height="4" rx="1" fill="white" />
    </svg>
  );
}
