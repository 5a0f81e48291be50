// The whole product in one process, as `npm start` runs it: migrations at start, the bootstrap key,
// the API on the lean layer and the dashboard from Next.js, side by side.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, dialects, type TestDatabase } from "../support/databases.ts";
import { spawnServer, type ServerProcess } from "../support/process-server.ts";

const bootstrapKey = "bootstrap-key-for-the-process-test-0123456789";

describe.each(dialects)("deadbolt server process on %s", (dialect) => {
  let database: TestDatabase;
  let server: ServerProcess;
  const auth = { authorization: `Bearer ${bootstrapKey}`, "content-type": "application/json" };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await spawnServer({ DATABASE_URL: database.url, DEADBOLT_BOOTSTRAP_API_KEY: bootstrapKey, DEADBOLT_ADMIN_EMAIL: "ops@example.com", DEADBOLT_ADMIN_PASSWORD: "correct horse battery" });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("migrates an empty database at start and answers health", async () => {
    expect(server.output()).toContain("applied migrations");
    const res = await fetch(`${server.url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", database: { dialect, reachable: true } });
  });

  it("accepts the bootstrap key: a job is created and read back", async () => {
    const created = await fetch(`${server.url}/api/v1/jobs`, { method: "POST", headers: auth, body: JSON.stringify({ slug: "nightly-sync", schedule: { cron: "0 3 * * *" } }) });
    expect(created.status).toBe(201);
    const read = await fetch(`${server.url}/api/v1/jobs/nightly-sync`, { headers: auth });
    expect(read.status).toBe(200);
    expect((await read.json()).schedule).toEqual({ cron: "0 3 * * *", tz: "UTC" });
  });

  it("serves the dashboard from Next.js in the same process: signed-out visitors go to the sign-in page", async () => {
    const home = await fetch(`${server.url}/`, { redirect: "manual" });
    expect([303, 307, 308]).toContain(home.status);
    expect(home.headers.get("location")).toMatch(/\/login/);
    const login = await fetch(`${server.url}/login`);
    expect(login.status).toBe(200);
    expect(login.headers.get("content-type")).toMatch(/text\/html/);
    expect(await login.text()).toContain("Deadbolt");
    // The first admin came from DEADBOLT_ADMIN_EMAIL/PASSWORD: no setup page is offered.
    const setup = await fetch(`${server.url}/setup`, { redirect: "manual" });
    expect(setup.status).not.toBe(200);
  });

  it("keeps unknown API paths out of Next.js: a JSON 404", async () => {
    const res = await fetch(`${server.url}/api/v1/does-not-exist`, { headers: auth });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });

  it("lets Next.js answer its own unknown pages", async () => {
    const res = await fetch(`${server.url}/no-such-page`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("takes keys made by `deadbolt keys create`: read-only reads, cannot write", async () => {
    const deadbolt = (...args: string[]) => execFileSync(process.execPath, ["cli/bin/deadbolt.mjs", ...args], { env: { ...process.env, DATABASE_URL: database.url }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    const readKey = deadbolt("keys", "create", "--name", "grafana", "--read-only");
    const writeKey = deadbolt("keys", "create", "--name", "deploy");
    expect(readKey).toMatch(/^dbk_[A-Za-z0-9_-]{43}$/);
    const headers = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
    expect((await fetch(`${server.url}/api/v1/jobs`, { headers: headers(readKey) })).status).toBe(200);
    const job = JSON.stringify({ slug: "by-cli-key", schedule: { every: 60 } });
    expect((await fetch(`${server.url}/api/v1/jobs`, { method: "POST", headers: headers(readKey), body: job })).status).toBe(403);
    expect((await fetch(`${server.url}/api/v1/jobs`, { method: "POST", headers: headers(writeKey), body: job })).status).toBe(201);
  });

  it("stores keys hashed: the database never holds a key itself", async () => {
    const { openDatabase } = await import("../../lib/server/db.ts");
    const db = openDatabase(database.url);
    const rows = await db.prisma.apiKey.findMany();
    await db.close();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(bootstrapKey);
    }
    const admin = await (async () => {
      const again = openDatabase(database.url);
      const user = await again.prisma.user.findUniqueOrThrow({ where: { email: "ops@example.com" } });
      await again.close();
      return user;
    })();
    expect(admin.role).toBe("admin");
    expect(admin.passwordHash).toMatch(/^scrypt\$/);
    expect(admin.passwordHash).not.toContain("correct horse");
  });

  it("stops cleanly on SIGTERM", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
  });
});
