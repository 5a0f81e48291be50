import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const cronJob = { slug: "billing-charge", name: "Billing", tags: ["billing", "nightly"], schedule: { cron: "0 2 * * *", tz: "Europe/Berlin" } };

describe.each(dialects)("jobs API on %s", (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  describe("auth", () => {
    it("refuses a request without a key with 401 and the error shape", async () => {
      const res = await s.api("GET", "/api/v1/jobs", undefined, null);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("refuses an unknown key with 401", async () => {
      const res = await s.api("GET", "/api/v1/jobs", undefined, "dbk_not-a-real-key-at-all");
      expect(res.status).toBe(401);
    });

    it("lets a read-only key read but not write (403)", async () => {
      expect((await s.api("GET", "/api/v1/jobs", undefined, s.readKey)).status).toBe(200);
      const res = await s.api("POST", "/api/v1/jobs", { slug: "ro", schedule: { every: 60 } }, s.readKey);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect((await s.api("GET", "/api/v1/jobs/ro")).status).toBe(404);
    });

    it("answers health without a key and reports the database", async () => {
      const res = await s.api("GET", "/api/v1/health", undefined, null);
      expect(res.status).toBe(200);
      expect(res.body.database).toMatchObject({ dialect, reachable: true });
    });
  });

  describe("CRUD", () => {
    it("creates a job with defaults and an unguessable ping key", async () => {
      const res = await s.api("POST", "/api/v1/jobs", cronJob);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ slug: "billing-charge", name: "Billing", graceSeconds: 300, leaseTtlSeconds: 900, paused: false, leaseName: "job:billing-charge" });
      expect(res.body.schedule).toEqual({ cron: "0 2 * * *", tz: "Europe/Berlin" });
      // 16 random bytes in base64url: 22 characters, 128 bits.
      expect(res.body.pingKey).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(res.body.pingUrl).toBe(`${s.url}/ping/${res.body.pingKey}`);
      // The next 02:00 in Berlin is 01:00 UTC in winter.
      expect(res.body.nextSlotAt).toMatch(/T01:00:00\.000Z$/);
    });

    it("gives every job a different ping key", async () => {
      const a = await s.api("POST", "/api/v1/jobs", { slug: "key-a", schedule: { every: 60 } });
      const b = await s.api("POST", "/api/v1/jobs", { slug: "key-b", schedule: { every: 60 } });
      expect(a.body.pingKey).not.toBe(b.body.pingKey);
    });

    it("reads a job back, with its ping key only for a read-write key", async () => {
      const full = await s.api("GET", "/api/v1/jobs/billing-charge");
      expect(full.status).toBe(200);
      expect(full.body.tags).toEqual(["billing", "nightly"]);
      expect(full.body.pingKey).toBeDefined();
      const ro = await s.api("GET", "/api/v1/jobs/billing-charge", undefined, s.readKey);
      expect(ro.status).toBe(200);
      expect(ro.body.pingKey).toBeUndefined();
      expect(ro.body.pingUrl).toBeUndefined();
    });

    it("refuses a second job with the same slug with 409 and keeps the first", async () => {
      const res = await s.api("POST", "/api/v1/jobs", { ...cronJob, name: "Impostor" });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: "conflict", field: "slug" });
      expect((await s.api("GET", "/api/v1/jobs/billing-charge")).body.name).toBe("Billing");
    });

    it("patches only the fields given", async () => {
      const res = await s.api("PATCH", "/api/v1/jobs/billing-charge", { graceSeconds: 120, maxRuntimeSeconds: 600 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ graceSeconds: 120, maxRuntimeSeconds: 600, name: "Billing", schedule: { cron: "0 2 * * *", tz: "Europe/Berlin" } });
    });

    it("upserts with PUT: 201 when new, 200 when replaced, ping key kept", async () => {
      const created = await s.api("PUT", "/api/v1/jobs/nightly-sync", { schedule: { cron: "30 3 * * *", tz: "America/New_York" }, graceSeconds: 600 });
      expect(created.status).toBe(201);
      expect(created.body.name).toBe("nightly-sync");
      const replaced = await s.api("PUT", "/api/v1/jobs/nightly-sync", { name: "Nightly sync", schedule: { every: 3600 } });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ name: "Nightly sync", schedule: { every: 3600 }, graceSeconds: 300 });
      expect(replaced.body.pingKey).toBe(created.body.pingKey);
    });

    it("pauses and resumes", async () => {
      const paused = await s.api("POST", "/api/v1/jobs/nightly-sync/pause");
      expect(paused.status).toBe(200);
      expect(paused.body.paused).toBe(true);
      expect(paused.body.nextSlotAt).toBeNull();
      const resumed = await s.api("POST", "/api/v1/jobs/nightly-sync/resume", "", s.writeKey);
      expect(resumed.status).toBe(200);
      expect(resumed.body.paused).toBe(false);
    });

    it("lists jobs in keyset pages and filters by tag", async () => {
      const first = await s.api("GET", "/api/v1/jobs?limit=2");
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(2);
      expect(first.body.nextCursor).toBe(first.body.items[1].slug);
      const second = await s.api("GET", `/api/v1/jobs?limit=2&cursor=${first.body.nextCursor}`);
      const slugs = [...first.body.items, ...second.body.items].map((j: { slug: string }) => j.slug);
      expect(slugs).toEqual([...slugs].sort());
      expect(new Set(slugs).size).toBe(slugs.length);
      const tagged = await s.api("GET", "/api/v1/jobs?tag=nightly");
      expect(tagged.body.items.map((j: { slug: string }) => j.slug)).toEqual(["billing-charge"]);
    });

    it("deletes a job, then answers 404 for it", async () => {
      await s.api("POST", "/api/v1/jobs", { slug: "doomed", schedule: { every: 60 } });
      expect((await s.api("DELETE", "/api/v1/jobs/doomed")).status).toBe(200);
      const gone = await s.api("GET", "/api/v1/jobs/doomed");
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("not_found");
      expect((await s.api("DELETE", "/api/v1/jobs/doomed")).status).toBe(404);
    });
  });

  describe("validation", () => {
    it.each([
      [{ slug: "bad-cron", schedule: { cron: "61 * * * *" } }, "schedule.cron"],
      [{ slug: "bad-tz", schedule: { cron: "0 * * * *", tz: "Mars/Olympus" } }, "schedule.tz"],
      [{ slug: "Bad Slug!", schedule: { every: 60 } }, "slug"],
      [{ slug: "no-every", schedule: { every: 0 } }, "schedule.every"],
      [{ slug: "both", schedule: { every: 60, cron: "* * * * *" } }, "schedule"],
      [{ slug: "neg-grace", schedule: { every: 60 }, graceSeconds: -1 }, "graceSeconds"],
      [{ slug: "min-max", schedule: { every: 60 }, minRuntimeSeconds: 100, maxRuntimeSeconds: 50 }, "minRuntimeSeconds"],
      [{ schedule: { every: 60 } }, "slug"],
      [{ slug: "no-schedule" }, "schedule"],
      [{ slug: "chan", schedule: { every: 60 }, channelIds: ["nope"] }, "channelIds"],
    ])("answers 422 naming the field for %j", async (body, field) => {
      const res = await s.api("POST", "/api/v1/jobs", body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.field).toBe(field);
      expect(res.body.error.message).toContain(field);
    });

    it("answers 400 for malformed JSON and stores nothing", async () => {
      const res = await s.api("POST", "/api/v1/jobs", '{"slug": "half", ');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_json");
      expect((await s.api("GET", "/api/v1/jobs/half")).status).toBe(404);
    });

    it("answers 413 for an oversized body and keeps the job as it was", async () => {
      const res = await s.api("PATCH", "/api/v1/jobs/billing-charge", { name: "x".repeat(2 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("payload_too_large");
      expect((await s.api("GET", "/api/v1/jobs/billing-charge")).body.name).toBe("Billing");
    });

    it("answers 415 for a body that is not JSON", async () => {
      const res = await fetch(`${s.url}/api/v1/jobs`, { method: "POST", headers: { authorization: `Bearer ${s.writeKey}`, "content-type": "text/plain" }, body: "slug=x" });
      expect(res.status).toBe(415);
      expect((await res.json()).error.code).toBe("unsupported_media_type");
    });

    it("rejects an invalid PATCH without changing the stored job", async () => {
      const res = await s.api("PATCH", "/api/v1/jobs/billing-charge", { schedule: { cron: "not a cron" }, name: "Changed" });
      expect(res.status).toBe(422);
      const job = (await s.api("GET", "/api/v1/jobs/billing-charge")).body;
      expect(job.name).toBe("Billing");
      expect(job.schedule.cron).toBe("0 2 * * *");
    });
  });

  describe("routing", () => {
    it("answers unknown API paths with a JSON 404", async () => {
      for (const path of ["/api/v1/nothing-here", "/api", "/ping"]) {
        const res = await s.api("GET", path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("not_found");
      }
    });

    it("serves Prometheus metrics to a read-only key, and not without one", async () => {
      expect((await s.api("GET", "/metrics", undefined, null)).status).toBe(401);
      const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${s.readKey}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      const jobs = (await s.api("GET", "/api/v1/jobs?limit=500")).body.items.length;
      expect(text).toContain(`deadbolt_jobs ${jobs}\n`);
      expect(text).toMatch(/deadbolt_incidents_open\{kind="missed"\} \d+/);
    });

    it("serves an OpenAPI document covering the jobs routes", async () => {
      const res = await s.api("GET", "/api/v1/openapi.json", undefined, null);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe("3.1.0");
      expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(["/api/v1/jobs", "/api/v1/jobs/{slug}", "/api/v1/jobs/{slug}/pause", "/api/v1/health"]));
      const create = res.body.paths["/api/v1/jobs"].post;
      expect(create.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["slug", "schedule"]));
    });
  });
});
