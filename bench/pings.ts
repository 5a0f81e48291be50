// POST /ping/{key} with a 1 KB body spread over 1,000 jobs, against a bare Node http server answering
// "OK" to the same requests, same run, same box (../shared/NOTES.md: "The ping hot path, measured").
//
// Two connection patterns, 50 clients each: keep-alive (a job runner's HTTP client), and a new
// connection per request (`curl` in a crontab). autocannon 9 cannot do the second: `reconnectRate: 1`
// drops every response uncounted, and a `Connection: close` header counts responses but writes the
// next request onto the closing socket, so its latencies pile up (p50 ~1 s against bare Node). The
// second pattern therefore uses the small raw-socket loader below: connect, send, read until the
// server closes, repeat; its latency includes the TCP connect, as curl's does.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type autocannon from "autocannon";
import { openDatabase } from "../lib/server/db.ts";
import { load, printTable, spawnListening, type Measured } from "./support.ts";

const CONNECTIONS = 50;
const BODY = `${"ping body ".repeat(102)}done\n`; // 1,024 bytes

async function createJobs(url: string, apiKey: string, tag: string, jobs: number, everySeconds: number): Promise<string[]> {
  const keys: string[] = [];
  for (let start = 0; start < jobs; start += 50) {
    const batch = Array.from({ length: Math.min(50, jobs - start) }, async (_, i) => {
      const res = await fetch(`${url}/api/v1/jobs`, {
        method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ slug: `bench-${tag}-${start + i}`, schedule: { every: everySeconds } }),
      });
      if (res.status !== 201) throw new Error(`creating a job: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { pingKey: string }).pingKey;
    });
    keys.push(...(await Promise.all(batch)));
  }
  return keys;
}

/** Keep-alive: autocannon, POSTing to /ping/{key} through the keys in turn. */
function keepAlive(name: string, url: string, keys: string[], duration?: number): Promise<Measured> {
  let next = 0;
  const requests: autocannon.Request[] = [
    { method: "POST", body: BODY, headers: { "content-type": "text/plain" }, setupRequest: (req) => ({ ...req, path: `/ping/${keys[next++ % keys.length]}` }) },
  ];
  return load(name, { url, connections: CONNECTIONS, requests, ...(duration ? { duration } : {}) });
}

/** A new connection per request: CONNECTIONS clients, each connect → POST → read until close, in a loop. */
async function newConnectionEach(name: string, url: string, keys: string[]): Promise<Measured> {
  const { hostname, port } = new URL(url);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let next = 0;
  const one = (key: string) =>
    new Promise<void>((resolve) => {
      const startedAt = performance.now();
      let head = "";
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(`POST /ping/${key} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: text/plain\r\nContent-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY}`);
      });
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => {
        if (head.length < 12) head += chunk;
      });
      socket.on("error", () => errors++);
      socket.on("close", (hadError) => {
        if (!hadError) {
          latencies.push(performance.now() - startedAt);
          if (!/^HTTP\/1\.1 2\d\d/.test(head)) non2xx++;
        }
        resolve();
      });
    });
  const endsAt = performance.now() + seconds * 1000;
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < endsAt) await one(keys[next++ % keys.length]);
  }));
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { name, requestsPerSec: Math.round(latencies.length / elapsedSeconds), p50Ms: at(0.5), p99Ms: at(0.99), errors, non2xx };
}

/**
 * `jobs` jobs scheduled every `everySeconds`. With 1,000 jobs every 60 s (the setup) nearly
 * every ping repeats its job's slot, so duplicate detection runs on each; with 10,000 jobs every
 * second, a job is pinged about once per slot, as a healthy fleet pings.
 */
export async function benchPings(databaseUrl?: string, jobs = 1_000, everySeconds = 60) {
  const JOBS = jobs;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-bench-"));
  const url = databaseUrl ?? `file:${path.join(dir, "bench.db")}`;
  const dialect = url.startsWith("file:") ? "SQLite" : "PostgreSQL";
  const apiKey = `bench-${randomBytes(16).toString("hex")}`;
  const bare = await spawnListening(["bench/bare-server.mjs"]);
  const deadbolt = await spawnListening(["--import", "tsx", "server.ts"], { DATABASE_URL: url, DEADBOLT_WORKER: "off", DEADBOLT_BOOTSTRAP_API_KEY: apiKey });
  try {
    const tag = randomBytes(4).toString("hex");
    const keys = await createJobs(deadbolt.url, apiKey, tag, jobs, everySeconds);
    // Warm both up (JIT, connections, the database's pages) before measuring.
    await keepAlive("warm-up", bare.url, keys, 2);
    await keepAlive("warm-up", deadbolt.url, keys, 2);

    const ours = `Deadbolt POST /ping/{key} (${dialect}, answered after commit)`;
    const common = `POST /ping/{key}, 1 KB body over ${JOBS.toLocaleString("en")} jobs (every ${everySeconds} s), ${CONNECTIONS} clients`;
    const kept = [await keepAlive("bare Node http, POST → OK", bare.url, keys), await keepAlive(ours, deadbolt.url, keys)];
    printTable(`${common}, keep-alive (autocannon)`, kept, kept[0]);
    const fresh = [await newConnectionEach("bare Node http, POST → OK", bare.url, keys), await newConnectionEach(ours, deadbolt.url, keys)];
    printTable(`${common}, a new connection per request (raw sockets, Connection: close)`, fresh, fresh[0]);

    // Pings that were answered but not stored would prove nothing: show that they are in the ledger.
    const db = openDatabase(url);
    try {
      const stored = await db.prisma.ping.count({ where: { job: { slug: { startsWith: `bench-${tag}-` } } } });
      console.log(`\n${stored.toLocaleString("en")} pings stored for this run's ${JOBS.toLocaleString("en")} jobs`);
    } finally {
      await db.close();
    }
    return { keepAlive: kept, newConnection: fresh };
  } finally {
    await bare.stop();
    await deadbolt.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
