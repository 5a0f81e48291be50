// Shared by the benchmarks: servers in their own processes, autocannon as the load, one table.
import { spawn, type ChildProcess } from "node:child_process";
import autocannon from "autocannon";

export interface Proc {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export function spawnListening(args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const proc = spawn(process.execPath, args, { env: { ...(process.env as Record<string, string>), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve({ url: match[1], proc, stop: () => new Promise((r) => { proc.once("exit", () => r()); proc.kill("SIGKILL"); }) });
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
}

export interface Measured {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export async function load(name: string, opts: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: 50, duration: Number(process.env.BENCH_SECONDS ?? 10), ...opts });
  return {
    name,
    requestsPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function printTable(title: string, rows: Measured[], reference: Measured) {
  console.log(`\n${title}`);
  console.log("| variant | req/s | p50 ms | p99 ms | errors | non-2xx | of reference |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const ratio = `${((100 * r.requestsPerSec) / reference.requestsPerSec).toFixed(1)} %`;
    console.log(`| ${r.name} | ${r.requestsPerSec.toLocaleString("en")} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} | ${r.non2xx} | ${ratio} |`);
  }
}
