import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

describe.each(dialects)("ping URLs on %s", (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  let jobs = 0;
  /** A new job of its own for each test: its ping key and id. */
  async function newJob(body: Record<string, unknown> = {}): Promise<{ key: string; id: string; slug: string }> {
    const slug = `ping-job-${++jobs}`;
    const res = await s.api("POST", "/api/v1/jobs", { slug, schedule: { every: 300 }, ...body });
    expect(res.status).toBe(201);
    const job = await s.db.prisma.job.findUniqueOrThrow({ where: { slug } });
    return { key: res.body.pingKey, id: job.id, slug };
  }
  const ping = (key: string, path = "", init: RequestInit = {}) => fetch(`${s.url}/ping/${key}${path}`, init);
  const runsOf = (jobId: string) => s.db.prisma.run.findMany({ where: { jobId }, orderBy: { id: "asc" } });
  const pingsOf = (jobId: string) => s.db.prisma.ping.findMany({ where: { jobId }, orderBy: { id: "asc" } });
  const counts = async () => ({ runs: await s.db.prisma.run.count(), pings: await s.db.prisma.ping.count() });
  /** Pretend a run started `ms` ago instead of sleeping. */
  const backdateStart = (runId: string, ms: number) => s.db.prisma.run.update({ where: { id: runId }, data: { startedAt: new Date(Date.now() - ms) } });

  it("records a success ping as a succeeded run with exit code 0 and answers OK", async () => {
    const job = await newJob();
    const res = await ping(job.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe("OK");
    const [run] = await runsOf(job.id);
    expect(run).toMatchObject({ source: "ping", outcome: "succeeded", exitCode: 0, durationMs: null, holder: null, claimedSlot: null });
    expect(run.finishedAt).toEqual(run.startedAt);
    const [row] = await pingsOf(job.id);
    expect(row).toMatchObject({ kind: "success", runId: run.id, exitCode: null, method: "GET" });
  });

  it("pairs a start and a success into one run whose duration covers the gap", async () => {
    const job = await newJob();
    expect((await ping(job.key, "/start")).status).toBe(200);
    const [started] = await runsOf(job.id);
    expect(started.outcome).toBe("running");
    await backdateStart(started.id, 5_000);
    expect((await ping(job.key)).status).toBe(200);
    const runs = await runsOf(job.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: started.id, outcome: "succeeded", exitCode: 0 });
    expect(runs[0].durationMs).toBeGreaterThanOrEqual(5_000);
    expect(runs[0].durationMs).toBeLessThan(60_000);
    expect((await pingsOf(job.id)).map((p) => [p.kind, p.runId])).toEqual([["start", started.id], ["success", started.id]]);
  });

  it("closes a started run as failed with exit code 1 on /fail and counts the failure on the job", async () => {
    const job = await newJob();
    await ping(job.key, "/start");
    await ping(job.key, "/fail", { method: "POST", body: "disk full" });
    const runs = await runsOf(job.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: "failed", exitCode: 1, output: "disk full" });
    expect(runs[0].finishedAt).not.toBeNull();
    const row = await s.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row).toMatchObject({ lastOutcome: "failed", consecutiveFailures: 1 });
  });

  it("opens a failed incident naming the run, host and exit code of a failing ping without a start", async () => {
    const job = await newJob();
    await ping(job.key, "/7", { headers: { "user-agent": "curl/8.5.0" } });
    const [run] = await runsOf(job.id);
    const incidents = await s.db.prisma.incident.findMany({ where: { jobId: job.id, kind: "failed" } });
    expect(incidents).toHaveLength(1);
    expect(incidents[0].status).toBe("open");
    expect(JSON.parse(incidents[0].evidence)).toMatchObject({ runId: run.id, host: "127.0.0.1", exitCode: 7 });
  });

  it("takes the exit code from the URL: non-zero fails, zero succeeds", async () => {
    const job = await newJob();
    expect((await ping(job.key, "/3")).status).toBe(200);
    expect((await ping(job.key, "/0")).status).toBe(200);
    expect((await ping(job.key, "/255")).status).toBe(200);
    expect((await runsOf(job.id)).map((r) => [r.outcome, r.exitCode])).toEqual([["failed", 3], ["succeeded", 0], ["failed", 255]]);
    expect((await pingsOf(job.id)).map((p) => [p.kind, p.exitCode])).toEqual([["exit", 3], ["exit", 0], ["exit", 255]]);
  });

  it("refuses an exit code above 255 with 422 and a path that is no exit code with 404, storing nothing", async () => {
    const job = await newJob();
    const tooBig = await ping(job.key, "/256");
    expect(tooBig.status).toBe(422);
    expect((await tooBig.json()).error).toMatchObject({ code: "validation_failed", field: "exitCode" });
    const notACode = await ping(job.key, "/done");
    expect(notACode.status).toBe(404);
    expect((await notACode.json()).error.code).toBe("not_found");
    expect(await runsOf(job.id)).toHaveLength(0);
    expect(await pingsOf(job.id)).toHaveLength(0);
  });

  it("keeps two concurrent runs of one job apart by ?rid=", async () => {
    const job = await newJob();
    await ping(job.key, "/start?rid=run-A");
    await ping(job.key, "/start?rid=run-B");
    const [a, b] = await runsOf(job.id);
    expect([a.rid, b.rid]).toEqual(["run-A", "run-B"]);
    await backdateStart(a.id, 10_000);
    await backdateStart(b.id, 3_000);
    await ping(job.key, "/0?rid=run-B");
    await ping(job.key, "/fail?rid=run-A");
    const [doneA, doneB] = await runsOf(job.id);
    expect(doneB).toMatchObject({ rid: "run-B", outcome: "succeeded", exitCode: 0 });
    expect(doneB.durationMs).toBeGreaterThanOrEqual(3_000);
    expect(doneB.durationMs).toBeLessThan(10_000);
    expect(doneA).toMatchObject({ rid: "run-A", outcome: "failed", exitCode: 1 });
    expect(doneA.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(await runsOf(job.id)).toHaveLength(2);
  });

  it("closes the newest open run without a rid on a finish without a rid, and leaves runs with a rid open", async () => {
    const job = await newJob();
    await ping(job.key, "/start");
    await ping(job.key, "/start");
    await ping(job.key, "/start?rid=other");
    const [older, newer, withRid] = await runsOf(job.id);
    await backdateStart(older.id, 10_000);
    await backdateStart(newer.id, 2_000);
    await ping(job.key);
    const after = await runsOf(job.id);
    expect(after.map((r) => [r.id, r.outcome])).toEqual([[older.id, "running"], [newer.id, "succeeded"], [withRid.id, "running"]]);
    expect(after[1].durationMs).toBeGreaterThanOrEqual(2_000);
    expect(after[1].durationMs).toBeLessThan(10_000);
  });

  it("records a finish with no open run as a run of its own, even when another rid is open", async () => {
    const job = await newJob();
    await ping(job.key, "/start?rid=a");
    await ping(job.key, "/fail?rid=b");
    const runs = await runsOf(job.id);
    expect(runs.map((r) => [r.rid, r.outcome, r.exitCode])).toEqual([["a", "running", null], ["b", "failed", 1]]);
  });

  it("stores a log ping without creating or changing any run", async () => {
    const job = await newJob();
    await ping(job.key, "/log", { method: "POST", body: "nothing started yet" });
    expect(await runsOf(job.id)).toHaveLength(0);
    await ping(job.key, "/start");
    const [before] = await runsOf(job.id);
    await ping(job.key, "/log", { method: "POST", body: "halfway there" });
    const after = await runsOf(job.id);
    expect(after).toEqual([before]);
    const logs = (await pingsOf(job.id)).filter((p) => p.kind === "log");
    expect(logs.map((p) => [p.body, p.runId])).toEqual([["nothing started yet", null], ["halfway there", before.id]]);
  });

  it("accepts GET, POST and HEAD, answering HEAD without a body", async () => {
    const job = await newJob();
    for (const method of ["GET", "POST", "HEAD"]) {
      const res = await ping(job.key, "", { method });
      expect(res.status).toBe(200);
      expect(res.headers.get("ping-body-limit")).toBe("102400");
      expect(await res.text()).toBe(method === "HEAD" ? "" : "OK");
    }
    expect((await pingsOf(job.id)).map((p) => p.method)).toEqual(["GET", "POST", "HEAD"]);
    expect((await runsOf(job.id)).map((r) => r.outcome)).toEqual(["succeeded", "succeeded", "succeeded"]);
  });

  it("keeps a form-urlencoded body (curl -d) as the run's output, as sent", async () => {
    const job = await newJob();
    const res = await ping(job.key, "", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "rows=42&status=done+ok" });
    expect(res.status).toBe(200);
    const [run] = await runsOf(job.id);
    expect(run.output).toBe("rows=42&status=done+ok");
    expect((await pingsOf(job.id))[0]).toMatchObject({ body: "rows=42&status=done+ok", bodyBytes: 22 });
  });

  it("keeps a text/plain body, and a body sent without a content type, as the run's output", async () => {
    const job = await newJob();
    await ping(job.key, "/fail", { method: "POST", headers: { "content-type": "text/plain; charset=utf-8" }, body: "Traceback: ünïcode kept\n" });
    await ping(job.key, "", { method: "POST", body: new Uint8Array(Buffer.from("raw bytes")) });
    expect((await runsOf(job.id)).map((r) => r.output)).toEqual(["Traceback: ünïcode kept\n", "raw bytes"]);
  });

  it("keeps exactly the last 100 KB of a 150 KB body and remembers its full size", async () => {
    const job = await newJob();
    // Every 10 bytes are numbered, so a tail from the wrong place cannot pass.
    const body = Array.from({ length: 15_360 }, (_, i) => String(i).padStart(9, "0") + "\n").join("");
    expect(Buffer.byteLength(body)).toBe(150 * 1024);
    const res = await ping(job.key, "", { method: "POST", body });
    expect(res.status).toBe(200);
    expect(res.headers.get("ping-body-limit")).toBe("102400");
    const [run] = await runsOf(job.id);
    expect(run.output).toBe(body.slice(-102_400));
    const [row] = await pingsOf(job.id);
    expect(row.body).toBe(body.slice(-102_400));
    expect(row.bodyBytes).toBe(153_600);
  });

  it("refuses a body over 10 MiB with 413 and stores nothing", async () => {
    const job = await newJob();
    const before = await counts();
    const res = await ping(job.key, "", { method: "POST", body: new Uint8Array(10 * 1024 * 1024 + 1).fill(120) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
    expect(await counts()).toEqual(before);
    expect(await runsOf(job.id)).toHaveLength(0);
  });

  it("accepts a body of exactly 10 MiB", async () => {
    const job = await newJob();
    const res = await ping(job.key, "", { method: "POST", body: new Uint8Array(10 * 1024 * 1024).fill(120) });
    expect(res.status).toBe(200);
    const [row] = await pingsOf(job.id);
    expect(row.bodyBytes).toBe(10 * 1024 * 1024);
    expect(row.body).toHaveLength(102_400);
  });

  it("answers an unknown or malformed key with 404 and the error shape, storing nothing anywhere", async () => {
    const before = await counts();
    for (const key of ["AAAAAAAAAAAAAAAAAAAAAA", "not-a-key", "AAAAAAAAAAAAAAAAAAAAA!"]) {
      for (const path of ["", "/start", "/fail", "/log", "/1"]) {
        const res = await ping(encodeURIComponent(key), path, { method: "POST", body: "lost" });
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toMatch(/^application\/json/);
        expect((await res.json()).error).toMatchObject({ code: "not_found" });
      }
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses a malformed rid with 422 and the error shape, storing nothing", async () => {
    const job = await newJob();
    for (const rid of ["has space", "x".repeat(65), "semi;colon"]) {
      const res = await ping(job.key, `/start?rid=${encodeURIComponent(rid)}`);
      expect(res.status).toBe(422);
      expect((await res.json()).error).toMatchObject({ code: "validation_failed", field: "rid" });
    }
    expect(await pingsOf(job.id)).toHaveLength(0);
    expect((await ping(job.key, `/start?rid=${"x".repeat(64)}`)).status).toBe(200);
  });

  it("stores the source IP, user agent, method and rid of each ping", async () => {
    const job = await newJob();
    await ping(job.key, "/start?rid=r1.a_b-c", { method: "POST", headers: { "user-agent": "curl/8.5.0" } });
    const [row] = await pingsOf(job.id);
    expect(row).toMatchObject({ kind: "start", sourceIp: "127.0.0.1", userAgent: "curl/8.5.0", method: "POST", rid: "r1.a_b-c", bodyBytes: 0, body: null });
    const [run] = await runsOf(job.id);
    expect(run).toMatchObject({ host: "127.0.0.1", rid: "r1.a_b-c", outcome: "running" });
  });

  it("moves the job's lastPingAt forward on every ping and lastStartedAt on a start", async () => {
    const job = await newJob();
    const long = new Date("2020-01-01T00:00:00Z");
    await s.db.prisma.job.update({ where: { id: job.id }, data: { lastPingAt: long, lastStartedAt: long } });
    await ping(job.key, "/log");
    let row = await s.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.lastPingAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(row.lastStartedAt).toEqual(long);
    await ping(job.key, "/start");
    row = await s.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.lastStartedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(row.lastStartedAt).toEqual(row.lastPingAt);
  });

  it("puts each run in its slot: for every 300 s, the multiple of 300 s it belongs to", async () => {
    const job = await newJob({ schedule: { every: 300 } });
    await ping(job.key, "/start");
    const [run] = await runsOf(job.id);
    // Up to min(60 s, period / 4) early still counts for the coming slot.
    const expected = Math.floor((run.startedAt.getTime() + 60_000) / 300_000) * 300_000;
    expect(run.slot!.getTime()).toBe(expected);
  });

  it("puts a cron job's run in the cron slot it belongs to", async () => {
    const job = await newJob({ schedule: { cron: "0 0 1 1 *", tz: "UTC" } });
    await ping(job.key);
    const [run] = await runsOf(job.id);
    expect(run.slot).toEqual(new Date(Date.UTC(run.startedAt.getUTCFullYear(), 0, 1)));
  });

  it("records the pings of a paused job", async () => {
    const job = await newJob();
    expect((await s.api("POST", `/api/v1/jobs/${job.slug}/pause`)).status).toBe(200);
    expect((await ping(job.key, "/fail")).status).toBe(200);
    expect((await runsOf(job.id)).map((r) => r.outcome)).toEqual(["failed"]);
  });

  it("lists every ping URL with GET, POST and HEAD in the OpenAPI document", async () => {
    const doc = await s.api("GET", "/api/v1/openapi.json", undefined, null);
    for (const path of ["/ping/{key}", "/ping/{key}/start", "/ping/{key}/fail", "/ping/{key}/log", "/ping/{key}/{exitCode}"]) {
      expect(Object.keys(doc.body.paths[path] ?? {}).sort()).toEqual(["get", "head", "post"]);
      expect(doc.body.paths[path].post).toMatchObject({ tags: ["pings"], security: [] });
    }
  });
});
