// Concurrency claims proven, not argued: OS processes race for one lease over HTTP.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const run = promisify(execFile);
const PROCESSES = 8;
const ITERATIONS = 15;

describe.each(dialects)("many processes racing for one lease on %s", (dialect) => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-race-"));
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("never lets two holders in at once, and fencing tokens strictly increase", async () => {
    const log = path.join(dir, "resource.log");
    const results = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        run(process.execPath, ["tests/support/lease-racer.mjs", s.url, s.writeKey, "billing-charge", String(ITERATIONS), log, `host-${i}`], { timeout: 120_000 }),
      ),
    );
    const stats = results.map((r) => JSON.parse(r.stdout.trim()));
    const lines = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => l.split(" "));
    expect(lines).toHaveLength(2 * PROCESSES * ITERATIONS);

    // The log is the shared resource: each entry must be followed by the same holder's exit.
    const tokens: number[] = [];
    for (let i = 0; i < lines.length; i += 2) {
      const [enter, holder, token] = lines[i];
      expect(enter).toBe("enter");
      expect(lines[i + 1]).toEqual(["exit", holder, token]);
      tokens.push(Number(token));
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]);

    // The races were real: contenders were refused along the way.
    expect(stats.reduce((n, st) => n + st.refused, 0)).toBeGreaterThan(0);
    // A wrong token never released anything; every stale release was refused.
    for (const st of stats) {
      expect(st.wrongReleasesRefused).toBe(ITERATIONS);
      expect(st.staleReleasesRefused).toBe(ITERATIONS);
    }
    const events = await s.db.prisma.leaseEvent.groupBy({ by: ["kind"], where: { leaseName: "billing-charge" }, _count: true });
    const count = Object.fromEntries(events.map((e) => [e.kind, e._count]));
    expect(count.acquired).toBe(PROCESSES * ITERATIONS);
    expect(count.released).toBe(PROCESSES * ITERATIONS);
    expect(count.release_refused).toBe(2 * PROCESSES * ITERATIONS);
  }, 180_000);

  it("blocks others after a SIGKILLed holder exactly until its TTL runs out", async () => {
    const lease = "crash-test";
    // Long enough for three pollers to start and be refused even on a loaded machine.
    const ttlSeconds = 5;
    const sleeper = spawn(process.execPath, ["tests/support/lease-sleeper.mjs", s.url, s.writeKey, lease, String(ttlSeconds), "crashed-worker"], { stdio: ["ignore", "pipe", "inherit"] });
    const first = await new Promise<{ status: number; expiresAt: string; fencingToken: number }>((resolve) => sleeper.stdout.once("data", (d) => resolve(JSON.parse(String(d)))));
    expect(first.status).toBe(200);

    // Three other processes poll for it.
    const pollers = Array.from({ length: 3 }, (_, i) =>
      run(process.execPath, ["-e", `
        const [url, key, lease] = process.argv.slice(1);
        (async () => {
          let refusedBefore = 0;
          for (;;) {
            const res = await fetch(url + "/api/v1/leases/" + lease + "/acquire", { method: "POST", headers: { authorization: "Bearer " + key, "content-type": "application/json" }, body: JSON.stringify({ ttlSeconds: 60, holder: "poller-${i}" }) });
            const body = await res.json();
            if (res.status === 200) { console.log(JSON.stringify({ won: true, refusedBefore, ...body })); return; }
            if (body.holder !== "crashed-worker" && body.holder !== null) { console.log(JSON.stringify({ won: false, refusedBefore })); return; }
            refusedBefore++;
            await new Promise((r) => setTimeout(r, 25));
          }
        })();`, s.url, s.writeKey, lease], { timeout: 30_000 }),
    );
    // Kill the holder once the pollers are refused: it dies holding the lease, without a release.
    const refusedSoFar = () => s.db.prisma.leaseEvent.count({ where: { leaseName: lease, kind: "refused" } });
    for (let waited = 0; (await refusedSoFar()) < 6 && waited < 4000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    sleeper.kill("SIGKILL");
    await new Promise((r) => sleeper.once("exit", r));
    const outcomes = (await Promise.all(pollers)).map((r) => JSON.parse(r.stdout.trim()));
    expect(outcomes.filter((o) => o.won)).toHaveLength(1);
    expect(outcomes.reduce((n, o) => n + o.refusedBefore, 0)).toBeGreaterThan(5);

    // Judged by the server's own records: the takeover came after the expiry, and promptly.
    const events = await s.db.prisma.leaseEvent.findMany({ where: { leaseName: lease }, orderBy: { id: "asc" } });
    const takeover = events.find((e) => e.kind === "takeover")!;
    expect(events.find((e) => e.kind === "expired")).toMatchObject({ holder: "crashed-worker", fencingToken: first.fencingToken });
    const expiresAt = Date.parse(first.expiresAt);
    expect(takeover.at.getTime()).toBeGreaterThanOrEqual(expiresAt);
    expect(takeover.at.getTime() - expiresAt).toBeLessThan(1500);
    expect(takeover.fencingToken).toBe(first.fencingToken + 1);
    const refusals = events.filter((e) => e.kind === "refused" && e.detail?.includes("crashed-worker"));
    expect(refusals.length).toBeGreaterThan(5);
    for (const r of refusals) expect(r.at.getTime()).toBeLessThan(expiresAt);
  }, 60_000);
});
