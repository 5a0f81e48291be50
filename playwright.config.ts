// Browser journeys against the real server: `node --import tsx server.ts` on a free port, a fresh
// SQLite file in a temp dir, the checker ticking every second. Debian's Chromium (../shared/NOTES.md).
// The server is built first if its sources changed (scripts/ensure-build.mjs; `npm test` has done it).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// Decided once, in the runner; workers inherit the environment, so they agree on the values.
function freePort(): string {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim();
}
const env = process.env;
env.DEADBOLT_E2E_PORT ??= freePort();
env.DEADBOLT_E2E_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-e2e-"));
env.DEADBOLT_E2E_API_KEY ??= `e2e_${randomBytes(24).toString("base64url")}`;
const baseURL = `http://127.0.0.1:${env.DEADBOLT_E2E_PORT}`;

export default defineConfig({
  testDir: "./tests/e2e",
  // Screenshots go to test-results/screenshots, beside (not inside) what Playwright clears per run.
  outputDir: "test-results/playwright",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: process.env.CI ? "list" : [["list"]],
  globalTeardown: "./tests/e2e/global-teardown.ts",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium", viewport: { width: 1280, height: 900 } } }],
  webServer: {
    command: "node scripts/ensure-build.mjs && node --import tsx server.ts",
    url: `${baseURL}/api/v1/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: env.DEADBOLT_E2E_PORT,
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${path.join(env.DEADBOLT_E2E_DIR, "deadbolt.db")}`,
      DEADBOLT_BASE_URL: baseURL,
      DEADBOLT_BOOTSTRAP_API_KEY: env.DEADBOLT_E2E_API_KEY,
      DEADBOLT_WORKER: "on",
      DEADBOLT_CHECK_EVERY: "1",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
    },
  },
});
