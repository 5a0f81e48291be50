"use client";
// Time left until an instant, ticking. Anchored to the server's clock: the offset between server
// and browser is measured once (serverNow vs the browser's clock at render) and kept.
import { useEffect, useState } from "react";
import { formatDuration } from "./format";

export function Countdown({ until, serverNow, expiredText = "expired" }: { until: string; serverNow: string; expiredText?: string }) {
  const [left, setLeft] = useState(() => new Date(until).getTime() - new Date(serverNow).getTime());
  useEffect(() => {
    const skew = Date.now() - new Date(serverNow).getTime();
    const tick = () => setLeft(new Date(until).getTime() - (Date.now() - skew));
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [until, serverNow]);
  if (left <= 0) return <span className="text-slate-500">{expiredText}</span>;
  return <span className="tabular-nums" data-testid="countdown">{formatDuration(Math.ceil(left / 1000) * 1000)}</span>;
}
