// Builds the dashboard when there is no build of the current sources (before `npm start` and the
// tests): a fresh clone starts with one command, and a stale build is never served.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const inputs = ["app", "components", "lib", "public", "next.config.ts", "postcss.config.mjs", "tsconfig.json", "package-lock.json", "generated"];
const stampFile = ".next/deadbolt-sources.sha256";

function hashTree(hash, target) {
  if (!fs.existsSync(target)) return;
  const stat = fs.statSync(target);
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(target).sort()) hashTree(hash, path.join(target, name));
  } else {
    hash.update(target).update("\0").update(fs.readFileSync(target)).update("\0");
  }
}

const hash = createHash("sha256");
for (const input of inputs) hashTree(hash, input);
const digest = hash.digest("hex");

if (fs.existsSync(".next/BUILD_ID") && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === digest) {
  process.exit(0);
}
console.log("deadbolt: building the dashboard (next build)…");
execFileSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
fs.writeFileSync(stampFile, digest);
