// Holds the layering of ../shared/STYLE.md: dependencies point inward.
//   lib/domain   imports nothing of ours but lib/contracts (and other lib/domain files)
//   lib/contracts imports only lib/contracts and lib/domain
//   components   never imports lib/server (it renders; the page fetches)
//   cli          speaks HTTP only: no lib/server, lib/http
//   only lib/server opens the database (generated Prisma clients, better-sqlite3, pg)
import fs from "node:fs";
import path from "node:path";

const rules = [
  { dir: "lib/domain", allow: ["lib/domain", "lib/contracts"] },
  { dir: "lib/contracts", allow: ["lib/contracts", "lib/domain"] },
  { dir: "components", deny: ["lib/server", "lib/http", "generated"] },
  { dir: "cli", deny: ["lib/server", "lib/http", "generated", "app"] },
  { dir: "app", deny: ["generated", "lib/http"] },
];
const dbPackages = ["better-sqlite3", "pg", "@prisma/adapter-pg", "@prisma/adapter-better-sqlite3", "@prisma/client"];
const dbAllowed = ["lib/server", "tests", "bench", "scripts"];

function* files(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (/\.(ts|tsx|mjs)$/.test(entry.name)) yield full;
  }
}

const problems = [];
for (const top of ["lib", "app", "components", "cli", "workers"]) {
  for (const file of files(top)) {
    const text = fs.readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      let target = null;
      if (spec.startsWith("@/")) target = spec.slice(2);
      else if (spec.startsWith(".")) target = path.relative(".", path.resolve(path.dirname(file), spec));
      if (target === null) {
        if (dbPackages.includes(spec) && !dbAllowed.some((d) => file.startsWith(d + "/"))) problems.push(`${file}: imports ${spec} (only lib/server talks to the database)`);
        continue;
      }
      for (const rule of rules) {
        if (!file.startsWith(rule.dir + "/")) continue;
        if (rule.allow && !rule.allow.some((a) => target.startsWith(a + "/") || target === a)) problems.push(`${file}: imports ${spec} (${rule.dir} may import only ${rule.allow.join(", ")})`);
        if (rule.deny && rule.deny.some((d) => target.startsWith(d + "/") || target === d)) problems.push(`${file}: imports ${spec} (${rule.dir} must not import ${rule.deny.join(", ")})`);
      }
    }
  }
}
if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("import boundaries hold");
