// `deadbolt exec` as cron runs it: separate OS processes against a real server, judged by the ledger.
import { checkDue } from "../../lib/server/check-due.ts";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const BIN = "cli/bin/deadbolt.mjs";
const NODE = process.execPath;

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `deadbolt ARGS…` as its own process; env values of undefined are removed. */
function start(args: string[], env: Record<string, string | undefined>, input?: string): { child: ChildProcess; exited: Promise<Exited>; stdout: () => string } {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(merged)) if (name.startsWith("DEADBOLT_")) delete merged[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  const startedAt = Date.now();
  const child = spawn(NODE, [BIN, ...args], { env: merged, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<Exited>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - startedAt })));
  return { child, exited, stdout: () => stdout };
}

/** `node -e SCRIPT ARGS…` as the command: several words, so no shell is involved. */
const nodeCommand = (script: string, ...args: string[]) => ["--", NODE, "-e", script, ...args];

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(dialects)("deadbolt exec on %s", (dialect) => {
  let s: TestServer;
  let dir: string;
  let env: Record<string, string>;
  const orphans: number[] = [];
  beforeAll(async () => {
    s = await startTestServer(dialect);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-cli-"));
    env = { DEADBOLT_URL: s.url, DEADBOLT_API_KEY: s.writeKey };
  });
  afterAll(async () => {
    for (const pid of orphans) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let jobs = 0;
  async function newJob(body: Record<string, unknown> = {}): Promise<{ slug: string; pingKey: string }> {
    const slug = `cli-job-${++jobs}`;
    const res = await s.api("POST", "/api/v1/jobs", { slug, schedule: { every: 3600 }, leaseTtlSeconds: 60, ...body });
    expect(res.status).toBe(201);
    return { slug, pingKey: res.body.pingKey };
  }
  const runsOf = async (slug: string) => (await s.api("GET", `/api/v1/jobs/${slug}/runs?limit=100`)).body.items as any[];
  const runDetail = async (id: string) => (await s.api("GET", `/api/v1/runs/${id}`)).body;
  const onlyRun = async (slug: string) => {
    const runs = await runsOf(slug);
    expect(runs).toHaveLength(1);
    return runDetail(runs[0].id);
  };

  it.concurrent("runs the command on exactly one of three hosts that fire for the same slot", async ({ expect }) => {
    const { slug } = await newJob();
    const log = path.join(dir, `${slug}.log`);
    const slot = "2026-03-01T10:00:00Z";
    const hosts = ["host-a", "host-b", "host-c"];
    const results = await Promise.all(
      hosts.map((host) =>
        start(["exec", "--job", slug, "--slot", slot, "--holder", host, ...nodeCommand("require('fs').appendFileSync(process.argv[1], process.argv[2] + '\\n'); setTimeout(() => {}, 1000)", log, host)], env).exited,
      ),
    );
    const lines = fs.readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1);
    const winner = lines[0];
    for (const [i, result] of results.entries()) {
      expect(result.code).toBe(0);
      if (hosts[i] === winner) {
        expect(result.stderr).toBe("");
        continue;
      }
      // One line, naming the winner: the lease it holds, or the slot it already ran.
      const stderrLines = result.stderr.trim().split("\n");
      expect(stderrLines).toHaveLength(1);
      expect(stderrLines[0]).toMatch(new RegExp(`^deadbolt: ${slug} not run: (lease held by ${winner} until \\S+ \\(slot 2026-03-01T10:00:00Z\\)|slot 2026-03-01T10:00:00Z already ran \\(run \\S+ on ${winner}, (running|succeeded)\\))$`));
    }
    const runs = await runsOf(slug);
    expect(runs.filter((r) => r.outcome === "succeeded").map((r) => r.holder)).toEqual([winner]);
    const refused = runs.filter((r) => r.outcome.startsWith("skipped_"));
    expect(refused.map((r) => r.holder).sort()).toEqual(hosts.filter((h) => h !== winner));
    expect(runs).toHaveLength(3);
  });

  it.concurrent("keeps the lease of a command that outlives its TTL through heartbeats", async ({ expect }) => {
    const { slug } = await newJob();
    const result = await start(["exec", "--job", slug, "--ttl", "2s", ...nodeCommand("setTimeout(() => console.log('done'), 5000)")], env).exited;
    expect(result).toMatchObject({ code: 0, stdout: "done\n", stderr: "" });
    const run = await onlyRun(slug);
    expect(run).toMatchObject({ outcome: "succeeded", exitCode: 0, leaseLostAt: null });
    expect(run.durationMs).toBeGreaterThanOrEqual(5000);
    const kinds = run.leaseEvents.map((e: { kind: string }) => e.kind);
    expect(kinds[0]).toBe("acquired");
    expect(kinds.at(-1)).toBe("released");
    expect(kinds.filter((k: string) => k === "renewed").length).toBeGreaterThanOrEqual(3);
    expect(kinds).not.toContain("renew_refused");
    // The lease never lapsed: every renewal came before the previous TTL ran out.
    const at = run.leaseEvents.map((e: { at: string }) => Date.parse(e.at));
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeLessThan(2000);
  });

  it.concurrent("leaves a SIGKILLed exec's run to expire at its TTL, and the checker marks it abandoned", async ({ expect }) => {
    const { slug } = await newJob();
    const pidFile = path.join(dir, `${slug}.pid`);
    const exec = start(["exec", "--job", slug, "--ttl", "2s", ...nodeCommand("require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)", pidFile)], env);
    const commandPid = Number(await waitFor("the command to start", () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8")));
    orphans.push(commandPid);
    await new Promise((r) => setTimeout(r, 1200)); // at least one heartbeat
    const killedAt = Date.now();
    exec.child.kill("SIGKILL");
    expect((await exec.exited).signal).toBe("SIGKILL");

    const lease = await waitFor("the lease to expire", async () => {
      const view = (await s.api("GET", `/api/v1/leases/job:${slug}`)).body;
      return view.state === "free" ? view : null;
    });
    const freeAt = Date.now();
    // It ran out at its TTL after the last heartbeat, not earlier (no release) and not much later.
    expect(Date.parse(lease.expiresAt)).toBeGreaterThan(killedAt);
    expect(Date.parse(lease.expiresAt)).toBeLessThanOrEqual(killedAt + 2000 + 500);
    expect(freeAt - killedAt).toBeLessThan(2000 + 1500);
    const run = await onlyRun(slug);
    expect(run.outcome).toBe("running");
    const kinds = run.leaseEvents.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain("renewed");
    expect(kinds).not.toContain("released");
    expect(run.leaseEvents.filter((e: { at: string }) => Date.parse(e.at) > killedAt + 300)).toEqual([]);

    // The checker's next tick after the expiry: the run is abandoned, with an incident naming it.
    await checkDue(s.db, new Date());
    const after = await runDetail(run.id);
    expect(after.outcome).toBe("abandoned");
    expect(after.leaseEvents.map((e: { kind: string }) => e.kind)).toContain("expired");
    const incidents = (await s.api("GET", `/api/v1/jobs/${slug}/incidents?status=open`)).body.items;
    expect(incidents.map((i: { kind: string }) => i.kind)).toEqual(["abandoned"]);
    expect(incidents[0].evidence.runId).toBe(run.id);
  });

  it.concurrent("passes the command's exit code on, and records it", async ({ expect }) => {
    const { slug } = await newJob();
    const result = await start(["exec", "--job", slug, ...nodeCommand("process.exit(7)")], env).exited;
    expect(result.code).toBe(7);
    expect(await onlyRun(slug)).toMatchObject({ outcome: "failed", exitCode: 7 });

    // Killed by a signal: 128 + its number, as a shell reports it.
    const killed = await newJob();
    const died = await start(["exec", "--job", killed.slug, ...nodeCommand("process.kill(process.pid, 'SIGKILL')")], env).exited;
    expect(died.code).toBe(137);
    expect(await onlyRun(killed.slug)).toMatchObject({ outcome: "failed", exitCode: 137 });
  });

  it.concurrent("passes SIGTERM on to the command and records how it exited", async ({ expect }) => {
    const { slug } = await newJob();
    const exec = start(["exec", "--job", slug, ...nodeCommand("process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(42); }); console.log('ready'); setTimeout(() => {}, 20000)")], env);
    await waitFor("the command to be ready", () => exec.stdout().includes("ready"));
    exec.child.kill("SIGTERM");
    const result = await exec.exited;
    expect(result.code).toBe(42);
    expect(result.stdout).toBe("ready\ngot SIGTERM\n");
    expect(result.ms).toBeLessThan(10_000);
    const run = await onlyRun(slug);
    expect(run).toMatchObject({ outcome: "failed", exitCode: 42 });
    expect(run.output).toContain("got SIGTERM");
  });

  it.concurrent("streams output through unchanged and records its last 100 KB", async ({ expect }) => {
    const { slug } = await newJob();
    // 4000 numbered 50-byte lines (200 KB) on stdout, then (once they are out) one line on stderr.
    const script = "let out = ''; for (let i = 0; i < 4000; i++) out += `line ${String(i).padStart(4, '0')} ${'x'.repeat(39)}\\n`; process.stdout.write(out, () => process.stderr.write('the end\\n'));";
    const result = await start(["exec", "--job", slug, ...nodeCommand(script)], env).exited;
    expect(result.code).toBe(0);
    const expected = Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(39)}\n`).join("");
    expect(result.stdout === expected).toBe(true);
    expect(result.stderr).toBe("the end\n");
    const { output } = await onlyRun(slug);
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(100 * 1024);
    expect(Buffer.byteLength(output)).toBeGreaterThan(90 * 1024);
    expect(output).toContain(`line 3999 ${"x".repeat(39)}\n`);
    expect(output).toContain("the end\n");
    expect(output).not.toContain("line 0000 ");
  });

  it.concurrent("keeps running and recording when its own reader goes away (deadbolt exec … | head)", async ({ expect }) => {
    const { slug } = await newJob();
    const exec = start(["exec", "--job", slug, ...nodeCommand("for (let i = 1; i <= 100000; i++) console.log('row ' + i)")], env);
    exec.child.stdout!.once("data", () => exec.child.stdout!.destroy());
    const result = await exec.exited;
    expect(result.code).toBe(0);
    expect(result.ms).toBeLessThan(15_000);
    const run = await onlyRun(slug);
    expect(run).toMatchObject({ outcome: "succeeded", exitCode: 0 });
    expect(run.output.endsWith("row 100000\n")).toBe(true);
  });

  it.concurrent("waits for a held lease with --wait, then runs", async ({ expect }) => {
    const { slug } = await newJob();
    const log = path.join(dir, `${slug}.log`);
    const go = path.join(dir, `${slug}.go`);
    // Appends its name, then holds on until the test says go.
    const append = (host: string) =>
      nodeCommand("const fs = require('fs'); fs.appendFileSync(process.argv[1], process.argv[2] + '\\n'); setInterval(() => fs.existsSync(process.argv[3]) && process.exit(0), 50)", log, host, go);
    const first = start(["exec", "--job", slug, "--slot", "2026-04-01T10:00:00Z", "--holder", "early", ...append("early")], env);
    await waitFor("the first command to start", () => fs.existsSync(log));
    const waiter = start(["exec", "--job", slug, "--slot", "2026-04-01T11:00:00Z", "--holder", "patient", "--wait", "20s", ...append("patient")], env);
    await waitFor("the waiter's first refusal", async () => (await runsOf(slug)).some((r) => r.holder === "patient"));
    fs.writeFileSync(go, "");
    expect((await first.exited).code).toBe(0);
    expect(await waiter.exited).toMatchObject({ code: 0, stderr: "" });
    expect(fs.readFileSync(log, "utf8")).toBe("early\npatient\n");
    const runs = await runsOf(slug);
    expect(runs.filter((r) => r.holder === "patient").map((r) => r.outcome).sort()).toEqual(["skipped_lease_held", "succeeded"]);
    // No claim per poll: it watched the lease instead.
    expect(runs).toHaveLength(3);

    // Still held when the wait runs out: skipped, saying it waited.
    fs.rmSync(go);
    const holder = start(["exec", "--job", slug, "--slot", "2026-04-01T12:00:00Z", "--holder", "slow", ...append("slow")], env);
    await waitFor("the slow command to start", () => fs.readFileSync(log, "utf8").includes("slow"));
    const gaveUp = await start(["exec", "--job", slug, "--slot", "2026-04-01T13:00:00Z", "--wait", "1s", "--skipped-exit-code", "3", ...append("never")], env).exited;
    const quiet = await start(["exec", "--job", slug, "--slot", "2026-04-01T13:00:00Z", "--quiet", ...append("never")], env).exited;
    fs.writeFileSync(go, "");
    expect(gaveUp.code).toBe(3);
    expect(gaveUp.stderr).toMatch(/not run: lease held by slow until \S+ \(slot 2026-04-01T13:00:00Z, after waiting 1s\)\n$/);
    expect(gaveUp.ms).toBeGreaterThan(900);
    expect(quiet).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect((await holder.exited).code).toBe(0);
    expect(fs.readFileSync(log, "utf8")).not.toContain("never");
  });

  it.concurrent("says loudly when the lease is lost, and stops the command with --kill-on-lease-loss", async ({ expect }) => {
    const { slug } = await newJob();
    const exec = start(["exec", "--job", slug, "--ttl", "2s", "--kill-on-lease-loss", ...nodeCommand("console.log('ready'); setTimeout(() => {}, 20000)")], env);
    await waitFor("the command to be ready", () => exec.stdout().includes("ready"));
    // Another instance's clock says its time is up (as after a long GC pause or a network split).
    await s.db.prisma.lease.update({ where: { name: `job:${slug}` }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const result = await exec.exited;
    expect(result.code).toBe(143);
    expect(result.ms).toBeLessThan(10_000);
    expect(result.stderr).toMatch(new RegExp(`^deadbolt: LEASE LOST: run \\S+ of ${slug}: .*Another host may start ${slug} now; sending SIGTERM to the command \\(--kill-on-lease-loss\\)\n`));
    expect(result.stderr).toMatch(/recorded as failed, but its lease had been lost/);
    const run = await onlyRun(slug);
    expect(run).toMatchObject({ outcome: "failed", exitCode: 143 });
    expect(run.leaseLostAt).not.toBeNull();
  });

  it.concurrent("passes stdin through, and runs a single-string command with /bin/sh", async ({ expect }) => {
    const { slug } = await newJob();
    const result = await start(["exec", "--job", slug, "--", 'read line && echo "got:$line" | tr a-z A-Z && exit 4'], env, "hello\n").exited;
    expect(result).toMatchObject({ code: 4, stdout: "GOT:HELLO\n", stderr: "" });
    expect(await onlyRun(slug)).toMatchObject({ outcome: "failed", exitCode: 4, output: "GOT:HELLO\n" });
  });

  it.concurrent("reports a command by pings only with --ping-key, without an API key", async ({ expect }) => {
    const { slug, pingKey } = await newJob();
    const result = await start(["exec", "--ping-key", pingKey, ...nodeCommand("console.log('synced 42 rows'); process.exit(3)")], { DEADBOLT_URL: s.url }).exited;
    expect(result).toMatchObject({ code: 3, stdout: "synced 42 rows\n", stderr: "" });
    const run = await onlyRun(slug);
    expect(run).toMatchObject({ source: "ping", outcome: "failed", exitCode: 3, fencingToken: null });
    expect(run.rid).toMatch(/^[0-9a-f]{16}$/);
    expect(run.durationMs).not.toBeNull();
    expect(run.output).toContain("synced 42 rows");
    expect(run.pings.map((p: { kind: string; exitCode: number | null }) => [p.kind, p.exitCode])).toEqual([["start", null], ["exit", 3]]);
  });

  it.concurrent("refuses in one line, without running the command, on a missing or refused key or an unknown job", async ({ expect }) => {
    const { slug } = await newJob();
    const marker = path.join(dir, `${slug}.ran`);
    const touch = nodeCommand("require('fs').writeFileSync(process.argv[1], 'ran')", marker);
    const cases: [Record<string, string | undefined>, string, RegExp][] = [
      [{ ...env, DEADBOLT_API_KEY: undefined }, slug, /^deadbolt: no API key: set DEADBOLT_API_KEY/],
      [{ ...env, DEADBOLT_API_KEY: "dbk_not-a-key" }, slug, /^deadbolt: cli-job-\d+ not run: the API key was refused/],
      [{ ...env, DEADBOLT_API_KEY: s.readKey }, slug, /^deadbolt: cli-job-\d+ not run: this API key is read-only: this command needs a read-write API key$/],
      [env, "no-such-job", /^deadbolt: no-such-job not run: no job 'no-such-job'$/],
    ];
    const results = await Promise.all(cases.map(([e, job]) => start(["exec", "--job", job, ...touch], e).exited));
    for (const [i, result] of results.entries()) {
      expect(result.code).toBe(78);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(cases[i][2]);
    }
    expect(fs.existsSync(marker)).toBe(false);
    expect(await runsOf(slug)).toEqual([]);
  });

  it.concurrent("acquires, validates and releases leases from the shell, and calls ping URLs", async ({ expect }) => {
    const acquired = await start(["lease", "acquire", "nightly-sync", "--ttl", "30s", "--holder", "cron-1", "--export"], env).exited;
    expect(acquired.code).toBe(0);
    const vars = Object.fromEntries(acquired.stdout.trim().split("\n").map((l) => l.replace(/^export /, "").split("=", 2) as [string, string]));
    expect(Object.keys(vars)).toEqual(["DEADBOLT_LEASE_NAME", "DEADBOLT_LEASE_TOKEN", "DEADBOLT_FENCING_TOKEN", "DEADBOLT_LEASE_EXPIRES_AT"]);
    expect(acquired.stdout.startsWith("export DEADBOLT_LEASE_NAME=nightly-sync\n")).toBe(true);

    const held = await start(["lease", "acquire", "nightly-sync", "--ttl", "30s", "--holder", "cron-2"], env).exited;
    expect(held).toMatchObject({ code: 1, stdout: "" });
    expect(held.stderr).toMatch(/^deadbolt: lease nightly-sync held by cron-1 until \S+\n$/);

    const withCreds = { ...env, ...vars };
    expect((await start(["lease", "validate", "nightly-sync"], withCreds).exited)).toMatchObject({ code: 0, stdout: "valid\n" });
    expect((await start(["lease", "release", "nightly-sync"], withCreds).exited).code).toBe(0);
    expect((await start(["lease", "release", "nightly-sync"], withCreds).exited).code).toBe(1);
    expect((await start(["lease", "validate", "nightly-sync"], withCreds).exited)).toMatchObject({ code: 1, stdout: "stale\n" });

    const { slug, pingKey } = await newJob();
    expect((await start(["ping", pingKey, "start", "--rid", "r1"], { DEADBOLT_URL: s.url }).exited).code).toBe(0);
    expect((await start(["ping", pingKey, "0", "--rid", "r1", "--data", "all good"], { DEADBOLT_URL: s.url }).exited).code).toBe(0);
    const unknown = await start(["ping", "AAAAAAAAAAAAAAAAAAAAAA"], { DEADBOLT_URL: s.url }).exited;
    expect(unknown.code).toBe(78);
    expect(unknown.stderr).toBe("deadbolt: no job has this ping key\n");
    expect(await onlyRun(slug)).toMatchObject({ source: "ping", outcome: "succeeded", rid: "r1", output: "all good" });
  });
});

describe("deadbolt exec when Deadbolt is unreachable", () => {
  let url: string;
  let dir: string;
  beforeAll(async () => {
    // A port that was just free and is closed again: connection refused.
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    await new Promise((r) => server.close(r));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-cli-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const env = () => ({ DEADBOLT_URL: url, DEADBOLT_API_KEY: "dbk_whatever" });

  it.concurrent("fails closed by default: retries, then exits 75 without running the command", async ({ expect }) => {
    const marker = path.join(dir, "closed.ran");
    const result = await start(["exec", "--job", "billing-charge", "--retry-for", "1.5s", ...nodeCommand("require('fs').writeFileSync(process.argv[1], 'ran')", marker)], env()).exited;
    expect(result.code).toBe(75);
    expect(fs.existsSync(marker)).toBe(false);
    expect(result.stderr).toContain("retrying for up to 1.5s");
    expect(result.stderr).toMatch(/deadbolt: billing-charge not run: Deadbolt at http:\/\/127\.0\.0\.1:\d+ is unreachable: connection refused after [2-9] attempts .*failing closed \(exit 75/);
    // It backed off between attempts, and gave up within its budget.
    expect(result.ms).toBeGreaterThan(400);
    expect(result.ms).toBeLessThan(10_000);
  });

  it.concurrent("runs the command without a lease with --on-unreachable=run, and passes its code on", async ({ expect }) => {
    const marker = path.join(dir, "open.ran");
    const result = await start(
      ["exec", "--job", "billing-charge", "--retry-for", "0", "--on-unreachable=run", ...nodeCommand("require('fs').writeFileSync(process.argv[1], String(process.env.DEADBOLT_RUN_ID)); process.exit(5)", marker)],
      env(),
    ).exited;
    expect(result.code).toBe(5);
    expect(fs.readFileSync(marker, "utf8")).toBe("undefined");
    expect(result.stderr).toMatch(/running billing-charge WITHOUT a lease \(--on-unreachable=run\)/);
  });
});
