// `npm test`: type check, build the dashboard if its sources changed, then every vitest project
// (unit, integration on SQLite and — with TEST_DATABASE_URL — PostgreSQL), then the browser tests
// when there are any. Ends with one plain line: "N passed, N failed".
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";

const step = (title) => console.log(`\n== ${title}`);
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } }).status ?? 1;

if (!process.env.TEST_DATABASE_URL) {
  console.log("!! PostgreSQL suite skipped: TEST_DATABASE_URL is not set.");
  console.log("!! Run it with TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npm test (CI always does).");
}

step("type check (tsc --noEmit)");
if (run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit"]) !== 0) process.exit(1);

step("import boundaries");
if (run(process.execPath, ["scripts/check-imports.mjs"]) !== 0) process.exit(1);

step("dashboard build");
execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });

let passed = 0;
let failed = 0;
let skipped = 0;

step("vitest: unit and integration");
fs.mkdirSync("test-results", { recursive: true });
const vitestStatus = run(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", "--outputFile.json=test-results/vitest.json"]);
try {
  const report = JSON.parse(fs.readFileSync("test-results/vitest.json", "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  if (vitestStatus !== 0 && report.numFailedTests === 0) failed += 1; // a suite that failed to load
} catch {
  failed += 1;
}

if (fs.existsSync("tests/e2e") && fs.readdirSync("tests/e2e").some((f) => f.endsWith(".spec.ts"))) {
  step("playwright: browser journeys");
  const status = run(process.execPath, ["node_modules/@playwright/test/cli.js", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: "test-results/playwright.json" });
  try {
    const stats = JSON.parse(fs.readFileSync("test-results/playwright.json", "utf8")).stats;
    passed += stats.expected;
    failed += stats.unexpected;
    skipped += stats.skipped;
    if (status !== 0 && stats.unexpected === 0) failed += 1;
  } catch {
    failed += 1;
  }
}

console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
