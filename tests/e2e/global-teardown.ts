import fs from "node:fs";

// The temp dir of this run's database (playwright.config.ts made it).
export default function globalTeardown() {
  const dir = process.env.DEADBOLT_E2E_DIR;
  if (dir && dir.includes("deadbolt-e2e-")) fs.rmSync(dir, { recursive: true, force: true });
}
