// Lease acquire + release pairs over HTTP, against a bare Node http server answering the same
// requests, same run, same box. Two shapes: uncontended (each pair on one of 1,000 lease names, so
// collisions are rare) and contended (all 50 connections on one lease: most acquires are refused,
// as the seeds' three crontabs would be). A pair is counted by the server itself: the fencing
// tokens issued during the load.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type autocannon from "autocannon";
import { openDatabase } from "../lib/server/db.ts";
import { load, printTable, spawnListening, type Measured } from "./support.ts";

const KEY = "bench-bootstrap-key-0123456789abcdef";
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

type Context = Record<string, unknown>;

function pairRequests(nameOf: () => string): autocannon.Request[] {
  return [
    {
      method: "POST" as const,
      setupRequest: (req: autocannon.Request, ctx: object) => {
        const context = ctx as Context;
        context.name = nameOf();
        return { ...req, path: `/api/v1/leases/${context.name}/acquire`, body: JSON.stringify({ ttlSeconds: 30, holder: "bench" }) };
      },
      onResponse: (status: number, body: string, ctx: object) => {
        const context = ctx as Context;
        context.token = status === 200 ? JSON.parse(body).token : null;
      },
    },
    {
      method: "POST" as const,
      // A refused acquire has nothing to release: start the next pair.
      setupRequest: (req: autocannon.Request, ctx: object) => {
        const context = ctx as Context;
        return (context.token ? { ...req, path: `/api/v1/leases/${context.name}/release`, body: JSON.stringify({ token: context.token }) } : null) as autocannon.Request;
      },
    },
  ];
}

async function issuedTokens(url: string): Promise<number> {
  const db = openDatabase(url);
  try {
    const { _sum } = await db.prisma.lease.aggregate({ _sum: { fencingToken: true } });
    return _sum.fencingToken ?? 0;
  } finally {
    await db.close();
  }
}

export async function benchLeases(databaseUrl?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-bench-"));
  const url = databaseUrl ?? `file:${path.join(dir, "bench.db")}`;
  const label = url.startsWith("file:") ? "SQLite" : "PostgreSQL";
  const bare = await spawnListening(["bench/bare-server.mjs"]);
  const deadbolt = await spawnListening(["--import", "tsx", "server.ts"], { DATABASE_URL: url, DEADBOLT_WORKER: "off", DEADBOLT_BOOTSTRAP_API_KEY: KEY });
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  try {
    let n = 0;
    const spread = () => `bench-${n++ % 1000}`;
    await load("warm-up", { url: deadbolt.url, headers, requests: pairRequests(spread), duration: 2 });
    const rows: Measured[] = [];
    const reference = await load("bare Node http, same requests", { url: bare.url, method: "POST", headers, body: JSON.stringify({ ttlSeconds: 30 }) });
    rows.push(reference);
    for (const [shape, nameOf] of [["uncontended (1,000 names)", spread], ["50 clients on one lease", () => "bench-contended"]] as const) {
      const before = await issuedTokens(url);
      const measured = await load(`Deadbolt ${label}, ${shape}`, { url: deadbolt.url, headers, requests: pairRequests(nameOf) });
      const pairs = (await issuedTokens(url)) - before;
      rows.push({ ...measured, name: `${measured.name}: ${Math.round(pairs / seconds).toLocaleString("en")} pairs/s` });
    }
    printTable(`Lease acquire+release pairs over HTTP, autocannon 50 connections, keep-alive (${label})`, rows, reference);
    return rows;
  } finally {
    await bare.stop();
    await deadbolt.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
