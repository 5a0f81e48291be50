// The dashboard's real journeys, in order, against one real server (playwright.config.ts): an ops
// person sets Deadbolt up, creates a job, watches runs and incidents arrive through the HTTP API,
// wires an alert channel, manages API keys, and signs out.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, request as playwrightRequest, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";

const ADMIN = { email: "ops@example.com", password: "correct horse battery staple" };
const SLUG = "nightly-billing";

/** 01:30 UTC (02:30 in Berlin in winter) n days ago: past slots of the job, whatever today is. */
function slot(daysAgo: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo, 1, 30)).toISOString();
}

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let api: APIRequestContext;

async function shot(p: Page, name: string) {
  await p.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

/** A run claimed and finished through the API, as `deadbolt exec` does it. */
async function claimAndFinish(holder: string, slot: string, exitCode: number, output: string) {
  const claim = await api.post(`/api/v1/jobs/${SLUG}/runs`, { data: { holder, slot } });
  expect(claim.status()).toBe(201);
  const { runId } = await claim.json();
  const finish = await api.post(`/api/v1/runs/${runId}/finish`, { data: { exitCode, output } });
  expect(finish.status()).toBe(200);
  return runId as string;
}

test.beforeAll(async ({ browser, baseURL }) => {
  context = await browser.newContext();
  page = await context.newPage();
  api = await playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${process.env.DEADBOLT_E2E_API_KEY}` } });
});

test.afterAll(async () => {
  await api?.dispose();
  await context?.close();
});

test("a fresh install asks for the first admin, then signs them in", async () => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/setup$/);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByLabel("Repeat the password").fill("short");
  await shot(page, "01-setup");
  await page.getByRole("button", { name: "Create the admin and sign in" }).click();
  await expect(page.getByTestId("error-password")).toContainText("at least 10 characters");
  // What was typed survives a refused submit.
  await expect(page.getByLabel("Email")).toHaveValue(ADMIN.email);

  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByLabel("Repeat the password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Create the admin and sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText("No jobs yet.")).toBeVisible();
  await shot(page, "02-overview-empty");

  // Setup is over: the page now sends people to the sign-in.
  await page.goto("/setup");
  await expect(page).toHaveURL(/\/$/);
});

test("creates a cron job in Europe/Berlin and previews its next fire times", async () => {
  await page.getByRole("link", { name: "New job" }).click();
  await expect(page).toHaveURL(/\/jobs\/new$/);
  await page.getByLabel("Slug").fill("Nightly Billing");
  await page.getByLabel("Name").fill("Nightly billing");
  await page.getByLabel("Tags").fill("billing nightly");

  // The preview checks the expression as it is typed.
  await page.getByLabel("Cron expression").fill("61 2 * * *");
  await expect(page.getByTestId("preview-error")).toContainText("invalid cron expression");

  await page.getByLabel("Cron expression").fill("30 2 * * *");
  await page.getByLabel("Time zone").selectOption("Europe/Berlin");
  await expect(page.getByTestId("schedule-text")).toHaveText("at 02:30, Europe/Berlin");
  const times = page.getByTestId("next-fire-times").locator("li");
  await expect(times).toHaveCount(5);
  for (const text of await times.allTextContents()) expect(text).toMatch(/02:30 (CET|CEST|GMT\+1|GMT\+2)/);

  await page.getByLabel("Max runtime (s)").fill("30");
  await page.getByLabel("Lease TTL (s)").fill("120");
  await shot(page, "03-job-form");

  // The server's contract refuses the slug; the message sits next to the field.
  await page.getByRole("button", { name: "Create job" }).click();
  await expect(page.getByTestId("error-slug")).toContainText("lowercase");
  await page.getByLabel("Slug").fill(SLUG);
  await page.getByRole("button", { name: "Create job" }).click();

  await expect(page).toHaveURL(new RegExp(`/jobs/${SLUG}$`));
  await expect(page.getByTestId("job-status")).toHaveAttribute("data-status", "new");
  await expect(page.getByTestId("job-schedule")).toHaveText("at 02:30, Europe/Berlin");
  await expect(page.getByTestId("job-next-fire-times").locator("li").first()).toContainText("02:30");
  await expect(page.getByTestId("ping-url")).toContainText("/ping/");
  await expect(page.getByTestId("lease-name")).toHaveText(`job:${SLUG}`);
});

test("shows the run history, the duration chart and an incident after runs arrive through the API", async () => {
  await claimAndFinish("web-1", slot(4), 0, "charged 41 invoices");
  await claimAndFinish("web-1", slot(3), 0, "charged 42 invoices");
  await claimAndFinish("web-2", slot(2), 1, "card processor timeout\nexit 1");
  // A second server claiming a slot that already ran is refused, and the refusal is recorded.
  expect((await api.post(`/api/v1/jobs/${SLUG}/runs`, { data: { holder: "web-3", slot: slot(2) } })).status()).toBe(409);

  // Two overlapping runs reported by ping URLs (a crontab installed on two servers).
  const pingUrl = (await page.getByTestId("ping-url").textContent())!.trim();
  for (const path of ["/start?rid=a", "/start?rid=b", "/0?rid=a", "/0?rid=b"]) {
    expect((await api.get(`${pingUrl}${path}`)).status()).toBe(200);
  }

  await page.reload();
  await expect(page.getByTestId("job-status")).toHaveAttribute("data-status", "down");
  await expect(page.getByTestId("open-incidents").locator('[data-kind="failed"]')).toContainText("failed run");
  await expect(page.getByTestId("run-row")).toHaveCount(6);
  await expect(page.locator('[data-testid="run-row"][data-outcome="skipped_slot_done"]')).toHaveCount(1);

  const failed = page.locator('[data-testid="run-row"][data-outcome="failed"]');
  await failed.getByRole("button", { name: "Output" }).click();
  await expect(page.getByTestId("run-output")).toContainText("card processor timeout");

  const chart = page.getByTestId("duration-chart");
  await expect(chart).toHaveAttribute("data-points", "5");
  await expect(chart.getByTestId("ttl-line")).toBeVisible();
  await expect(chart.getByTestId("max-runtime-line")).toBeVisible();
  await expect(page.getByTestId("host-timeline")).toHaveAttribute("data-overlaps", /[1-9]/);
  await shot(page, "04-job-page");

  await page.getByRole("link", { name: "Jobs", exact: true }).click();
  const row = page.locator(`[data-testid="job-row"][data-slug="${SLUG}"]`);
  await expect(row.getByTestId("job-status")).toHaveAttribute("data-status", "down");
  await expect(row.locator("svg[role=img]")).toBeVisible();
  await shot(page, "05-overview");

  await page.getByRole("link", { name: /^Incidents/ }).click();
  await expect(page.getByTestId("incidents-open").locator('[data-kind="failed"]')).toContainText(SLUG);
  await shot(page, "06-incidents");
});

test("filters the overview by status, tag and name", async () => {
  // A second job, on a fixed interval this time.
  await page.goto("/jobs/new");
  await page.getByLabel("Slug").fill("cache-warmer");
  await page.getByLabel("Name").fill("Cache warmer");
  await page.getByLabel("Tags").fill("web");
  await page.getByLabel("Fixed interval").check();
  await page.getByLabel("Every").fill("5");
  await expect(page.getByTestId("schedule-text")).toHaveText("every 5 minutes");
  await expect(page.getByTestId("next-fire-times").locator("li")).toHaveCount(5);
  await page.getByRole("button", { name: "Create job" }).click();
  await expect(page.getByTestId("job-schedule")).toHaveText("every 5 minutes");

  await page.goto("/");
  await expect(page.getByTestId("job-row")).toHaveCount(2);
  // Problems first.
  await expect(page.getByTestId("job-row").first()).toHaveAttribute("data-slug", SLUG);
  await page.getByTestId("status-filter-new").click();
  await expect(page.getByTestId("job-row")).toHaveCount(1);
  await expect(page.getByTestId("job-row").first()).toHaveAttribute("data-slug", "cache-warmer");
  await page.goto("/?tag=billing");
  await expect(page.getByTestId("job-row")).toHaveCount(1);
  await page.goto("/");
  await page.getByRole("searchbox").fill("warm");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("job-row")).toHaveCount(1);
  await expect(page.getByTestId("job-row").first()).toHaveAttribute("data-slug", "cache-warmer");
});

test("shows who holds a lease and when it expires", async () => {
  const claim = await api.post(`/api/v1/jobs/${SLUG}/runs`, { data: { holder: "worker-7", slot: slot(1), ttlSeconds: 300 } });
  expect(claim.status()).toBe(201);
  const { runId } = await claim.json();
  await page.goto("/leases");
  const lease = page.locator(`[data-testid="lease-row"][data-lease="job:${SLUG}"]`);
  await expect(lease).toHaveAttribute("data-state", "held");
  await expect(lease).toContainText("worker-7");
  await expect(lease.getByTestId("countdown")).toContainText(/\d/);
  await shot(page, "07-leases");
  expect((await api.post(`/api/v1/runs/${runId}/finish`, { data: { exitCode: 0 } })).status()).toBe(200);
});

test("adds a webhook channel, sends a test, and gets the next incident through it", async () => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    await page.getByRole("link", { name: "Channels" }).click();
    const form = page.getByTestId("channel-form");
    await form.getByLabel("Name").fill("ops hook");
    await form.getByLabel("URL").fill(url);
    await form.getByRole("button", { name: "Add channel" }).click();
    await expect(form.getByTestId("form-secret")).toContainText("shown only once");

    const channel = page.getByTestId("channel").filter({ hasText: "ops hook" });
    await channel.getByRole("button", { name: "Send test" }).click();
    await expect(channel.getByTestId("form-message")).toContainText("Delivered: HTTP 200");
    expect(received).toHaveLength(1);
    expect(received[0].headers["x-deadbolt-signature"]).toMatch(/^sha256=/);
    expect(JSON.parse(received[0].body).event).toBe("test");
    await expect(channel.locator('[data-testid="delivery"][data-ok="true"]')).toHaveCount(1);
    await shot(page, "08-channels");

    await page.goto(`/jobs/${SLUG}/edit`);
    await page.getByLabel("ops hook").check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${SLUG}$`));
    await expect(page.getByText(/resolved after 1 good run · ops hook/)).toBeVisible();
    // Editing the limits kept the schedule as it was.
    await expect(page.getByTestId("job-schedule")).toHaveText("at 02:30, Europe/Berlin");

    // The next failure opens an incident, and the checker delivers it to the linked channel.
    await claimAndFinish("web-2", slot(5), 1, "card declined");
    await expect.poll(() => received.filter((r) => JSON.parse(r.body).event === "opened").length, { timeout: 15_000 }).toBeGreaterThan(0);
    const alert = JSON.parse(received.find((r) => JSON.parse(r.body).event === "opened")!.body);
    expect(alert.job.slug).toBe(SLUG);
    await page.goto("/channels");
    await expect(page.getByTestId("channel").filter({ hasText: "ops hook" }).locator('[data-testid="delivery"][data-ok="true"]')).toHaveCount(2);
  } finally {
    receiver.close();
  }
});

test("creates an API key that works once, then revokes it", async ({ baseURL }) => {
  await page.getByRole("link", { name: "API keys" }).click();
  const form = page.getByTestId("api-key-form");
  await form.getByLabel("Name").fill("ci");
  await form.getByRole("button", { name: "Create key" }).click();
  const key = (await form.getByTestId("secret-value").textContent())!.trim();
  expect(key).toMatch(/^dbk_/);

  const client = await playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${key}` } });
  try {
    expect((await client.get("/api/v1/jobs")).status()).toBe(200);
    const row = page.locator('[data-testid="api-key-row"][data-name="ci"]');
    await row.getByRole("button", { name: "Revoke" }).click();
    await shot(page, "09-api-keys");
    await row.getByRole("button", { name: "Revoke key" }).click();
    await expect(row).toHaveAttribute("data-revoked", "true");
    // The API remembers a verified key for up to 5 s (lib/server/api-keys.ts), per module copy:
    // the dashboard's bundle clears its own copy, so the API's may answer 200 a little longer.
    await expect.poll(async () => (await client.get("/api/v1/jobs")).status(), { timeout: 8_000, intervals: [250, 500, 1000] }).toBe(401);
  } finally {
    await client.dispose();
  }
});

test("an admin adds a member", async () => {
  await page.getByRole("link", { name: "Users" }).click();
  const form = page.getByTestId("user-form");
  await form.getByLabel("Email").fill("member@example.com");
  await form.getByLabel("Password").fill("another long password");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(form.getByTestId("form-message")).toContainText("Added member@example.com");
  await expect(page.getByTestId("user-row")).toHaveCount(2);
  await shot(page, "10-users");
});

test("fits a phone-sized screen", async ({ browser }) => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
  const p = await phone.newPage();
  try {
    for (const [path, name] of [["/", "11-phone-overview"], [`/jobs/${SLUG}`, "12-phone-job"], [`/jobs/${SLUG}/edit`, "13-phone-edit"]]) {
      await p.goto(path);
      await expect(p.getByRole("button", { name: "Sign out" })).toBeVisible();
      // Elements sticking out of the viewport, named so a failure says which.
      const wide = await p.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest("[class*=overflow-x-auto],[class*=overflow-auto]"))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`.slice(0, 80)),
      );
      expect(wide, `${path} scrolls sideways`).toEqual([]);
      await shot(p, name);
    }
  } finally {
    await phone.close();
  }
});

test("pauses, resumes and deletes a job, each after confirming", async () => {
  await page.goto("/jobs/cache-warmer");
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await page.getByRole("button", { name: "Pause alerts" }).click();
  await expect(page.getByTestId("job-status")).toHaveAttribute("data-status", "paused");
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await page.getByRole("button", { name: "Resume watching" }).click();
  await expect(page.getByTestId("job-status")).not.toHaveAttribute("data-status", "paused");

  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete cache-warmer" }).click();
  await expect(page).toHaveURL(/\/\?deleted=cache-warmer$/);
  await expect(page.getByTestId("job-row")).toHaveCount(1);
});

test("signs out, and the old session is refused", async ({ browser }) => {
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name === "deadbolt_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto(`/jobs/${SLUG}`);
  await expect(page).toHaveURL(/\/login$/);

  // The cookie from before signing out is dead on the server, not just forgotten by the browser.
  const replay = await browser.newContext();
  await replay.addCookies(cookies);
  const p = await replay.newPage();
  await p.goto("/incidents");
  await expect(p).toHaveURL(/\/login$/);
  await replay.close();

  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill("wrong password!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("form-error")).toHaveText("Wrong email or password.");
  await shot(page, "14-login");

  // A member signs in: jobs yes, API keys no.
  await page.getByLabel("Password").fill("another long password");
  await page.getByLabel("Email").fill("member@example.com");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await page.goto("/settings/api-keys");
  await expect(page).toHaveURL(/\/\?denied=admin$/);

  // A server action sent without a session does nothing and sends the browser to sign in.
  await page.goto(`/jobs/${SLUG}`);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await context.clearCookies();
  await page.getByRole("button", { name: "Pause alerts" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await page.goto(`/jobs/${SLUG}`);
  await expect(page.getByTestId("job-status")).not.toHaveAttribute("data-status", "paused");
});
