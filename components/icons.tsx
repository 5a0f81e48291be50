// Small inline SVG icons: status must read without colour, and glyph fonts vary between machines.
const paths: Record<string, React.ReactNode> = {
  check: <path d="M3.5 8.5l3 3 6-7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />,
  cross: <path d="M4 4l8 8M12 4l-8 8" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />,
  clock: (
    <>
      <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.6" />
      <path d="M8 4.5V8l2.5 1.5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </>
  ),
  play: <path d="M5 3.5v9l7.5-4.5z" fill="currentColor" />,
  pause: (
    <>
      <rect x="4" y="3.5" width="2.6" height="9" rx="0.6" fill="currentColor" />
      <rect x="9.4" y="3.5" width="2.6" height="9" rx="0.6" fill="currentColor" />
    </>
  ),
  spark: <path d="M8 2.5v11M2.5 8h11M4.2 4.2l7.6 7.6M11.8 4.2l-7.6 7.6" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />,
  minus: <path d="M4 8h8" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />,
  alert: (
    <>
      <path d="M8 2l6.5 11.5h-13z" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
      <path d="M8 6.5v3.2M8 11.6v.1" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </>
  ),
  copy: (
    <>
      <rect x="5" y="5" width="8" height="9" rx="1.2" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="M3 11V3.2C3 2.5 3.5 2 4.2 2H10" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />
    </>
  ),
};

export type IconName = keyof typeof paths;

export function Icon({ name, className = "h-4 w-4" }: { name: IconName; className?: string }) {
  return (
    <svg viewBox="0 0 16 16" className={className} aria-hidden="true" focusable="false">
      {paths[name]}
    </svg>
  );
}
