// npm run bench [-- NAME…] — every benchmark, or the ones named. Each prints its numbers beside a
// reference measured in the same run. BENCH_SECONDS sets each load's duration (10 s).
// BENCH_PG_URL=postgresql://… adds the PostgreSQL variants.
import { execFileSync } from "node:child_process";
import { benchHealth } from "./health.ts";

const benches: Record<string, () => Promise<unknown>> = {
  health: async () => {
    await benchHealth();
    if (process.env.BENCH_PG_URL) await benchHealth(process.env.BENCH_PG_URL);
  },
};

execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });
const wanted = process.argv.slice(2).filter((a) => a !== "--");
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  if (!benches[name]) throw new Error(`no benchmark '${name}'; have: ${Object.keys(benches).join(", ")}`);
  await benches[name]();
}
process.exit(0);
