// Prisma's schema engine (WebAssembly build) driven through the driver adapters, because the Prisma
// CLI cannot download its native engine here (../shared/NOTES.md). Used at development time to write
// migrations and by the test that proves the committed migrations produce exactly the schema.
// Runtime start-up does not use this: lib/server/migrate.ts applies the committed SQL files.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import * as bg from "@prisma/schema-engine-wasm/schema_engine_bg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const require = createRequire(import.meta.url);
let wasmReady = false;

function loadWasm() {
  if (wasmReady) return;
  const wasmPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
  const module = new WebAssembly.Module(fs.readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  wasmReady = true;
}

// better-sqlite3's prepare() rejects multi-statement SQL, which the engine sends through executeRaw
// when it replays migrations on the shadow database: route argument-less raw calls to executeScript.
function scriptsViaExecuteScript(adapter) {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (q) => (q.args?.length ? executeRaw(q) : adapter.executeScript(q.sql).then(() => 0));
  return adapter;
}

// adapter-pg rejects PostgreSQL's internal "char" type (OID 18) that the engine's introspection
// queries return; read it as text.
function charAsText(adapter) {
  let proto = Object.getPrototypeOf(adapter);
  while (proto && !Object.hasOwn(proto, "performIO")) proto = Object.getPrototypeOf(proto);
  if (proto && !proto.__deadboltCharPatched) {
    const performIO = proto.performIO;
    proto.performIO = async function (...args) {
      const result = await performIO.apply(this, args);
      for (const field of result.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
      return result;
    };
    proto.__deadboltCharPatched = true;
  }
  return adapter;
}

function pgParts(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username || "postgres"), password: decodeURIComponent(u.password), database: u.pathname.slice(1) };
}

async function adapterFactory(flavor, url) {
  if (flavor === "sqlite") {
    const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
    const factory = new PrismaBetterSqlite3({ url }, { shadowDatabaseUrl: ":memory:" });
    return {
      adapterName: factory.adapterName,
      provider: factory.provider,
      connect: () => factory.connect(),
      connectToShadowDb: async () => scriptsViaExecuteScript(await factory.connectToShadowDb()),
    };
  }
  const { PrismaPg } = await import("@prisma/adapter-pg");
  // Discrete fields, not connectionString: adapter-pg builds the shadow pool from this config.
  const factory = new PrismaPg(pgParts(url));
  return {
    adapterName: factory.adapterName,
    provider: factory.provider,
    connect: async () => charAsText(await factory.connect()),
    // Our own shadow database lifecycle: adapter-pg 7.10.0 drops it before closing its pool.
    connectToShadowDb: async () => {
      const admin = await factory.connect();
      const name = `deadbolt_shadow_${Date.now()}_${process.pid}`;
      await admin.executeScript(`CREATE DATABASE "${name}"`);
      const shadow = await new PrismaPg({ ...pgParts(url), database: name }).connect();
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await admin.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.dispose();
      };
      return scriptsViaExecuteScript(charAsText(shadow));
    },
  };
}

export function schemaPath(flavor) {
  return path.resolve(`prisma/${flavor}/schema.prisma`);
}

export function migrationsList(flavor) {
  const dir = path.resolve(`prisma/${flavor}/migrations`);
  fs.mkdirSync(dir, { recursive: true });
  const names = fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: `provider = "${flavor}"\n` },
    shadowDbInitScript: "",
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8") } },
    })),
  };
}

const filters = { externalTables: [], externalEnums: [] };

/** Opens the engine against a database (`file:…` for SQLite, `postgresql://…`). Call free() when done. */
export async function openSchemaEngine(flavor, url) {
  loadWasm();
  const schemaFile = schemaPath(flavor);
  const schema = fs.readFileSync(schemaFile, "utf8");
  const bound = bindMigrationAwareSqlAdapterFactory(await adapterFactory(flavor, url));
  const engine = await bg.SchemaEngine.new({ datamodels: [[schemaFile, schema]] }, () => {}, bound);
  const datamodel = { tag: "schemaDatamodel", files: [{ path: schemaFile, content: schema }] };
  return {
    /** SQL that would take the committed migrations to the schema ("" when they already match). */
    async diffMigrationsToSchema() {
      const out = await engine.diff({ from: { tag: "migrations", ...migrationsList(flavor) }, to: datamodel, script: true, exitCode: true, filters });
      return out.exitCode === 2 ? out.stdout : "";
    },
    /** SQL that would take the live database to the schema ("" when they already match). */
    async diffDatabaseToSchema() {
      const out = await engine.diff({ from: { tag: "schemaDatasource", files: [{ path: schemaFile, content: schema }], configDir: process.cwd() }, to: datamodel, script: true, exitCode: true, filters });
      return out.exitCode === 2 ? out.stdout : "";
    },
    free: () => engine.free(),
  };
}
