// Generates both Prisma clients (SQLite and PostgreSQL) after install. The Prisma CLI tries to
// download its native schema engine, which this network cannot reach; generate does not need it,
// so point it at a binary that exists (never /bin/true: see ../shared/NOTES.md).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const prismaBin = "node_modules/prisma/build/index.js";
if (!existsSync(prismaBin)) {
  console.log("prisma CLI not installed; skipping client generation");
  process.exit(0);
}
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false", PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
for (const flavor of ["sqlite", "postgresql"]) {
  execFileSync(process.execPath, [prismaBin, "generate", "--schema", `prisma/${flavor}/schema.prisma`], { stdio: "inherit", env });
}
