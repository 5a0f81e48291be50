// npm run bench [-- NAME…] — every benchmark, or the ones named. Each prints its numbers beside a
// reference measured in the same run. BENCH_SECONDS sets each load's duration (10 s).
// BENCH_PG_URL=postgresql://… adds the PostgreSQL variants.
import { execFileSync } from "node:child_process";
import { benchChecker } from "./checker.ts";
import { benchDashboard } from "./dashboard.ts";
import { benchHealth } from "./health.ts";
import { benchPings } from "./pings.ts";
import { benchLeases } from "./leases.ts";

const benches: Record<string, () => Promise<unknown>> = {
  checker: async () => {
    await benchChecker();
    if (process.env.BENCH_PG_URL) await benchChecker(process.env.BENCH_PG_URL);
  },
  leases: async () => {
    await benchLeases();
    if (process.env.BENCH_PG_URL) await benchLeases(process.env.BENCH_PG_URL);
  },
  health: async () => {
    await benchHealth();
    if (process.env.BENCH_PG_URL) await benchHealth(process.env.BENCH_PG_URL);
  },
  pings: async () => {
    await benchPings();
    await benchPings(undefined, 10_000, 1);
    if (process.env.BENCH_PG_URL) await benchPings(process.env.BENCH_PG_URL);
  },
  dashboard: () => benchDashboard(),
};

execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });
const wanted = process.argv.slice(2).filter((a) => a !== "--");
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  if (!benches[name]) throw new Error(`no benchmark '${name}'; have: ${Object.keys(benches).join(", ")}`);
  await benches[name]();
}
process.exit(0);
