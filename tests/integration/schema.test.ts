import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../../lib/server/migrate.ts";
import { openDatabase } from "../../lib/server/db.ts";
// @ts-expect-error: a plain .mjs development script without types
import { openSchemaEngine } from "../../scripts/schema-engine.mjs";
import { createTestDatabase, dialects, type TestDatabase } from "../support/databases.ts";

const made: TestDatabase[] = [];
afterAll(async () => Promise.all(made.map((d) => d.drop())));

describe("the two Prisma schemas", () => {
  it("are identical but for the provider and the generated client's folder", () => {
    const normalise = (text: string) =>
      text
        .replace(/provider = "(sqlite|postgresql)"/, 'provider = "<db>"')
        .replace(/generated\/(sqlite|pg)"/, 'generated/<db>"')
        .replace(/prisma\/(sqlite|postgresql)\/schema\.prisma must stay/, "prisma/<other>/schema.prisma must stay");
    const sqlite = fs.readFileSync("prisma/sqlite/schema.prisma", "utf8");
    const postgresql = fs.readFileSync("prisma/postgresql/schema.prisma", "utf8");
    expect(sqlite).not.toBe(postgresql);
    expect(normalise(sqlite)).toBe(normalise(postgresql));
  });

  it("have the same migrations, by name, on both databases", () => {
    expect(readMigrations("sqlite").map((m) => m.name)).toEqual(readMigrations("postgresql").map((m) => m.name));
  });
});

describe.each(dialects)("migrations on %s", (dialect) => {
  it("produce exactly the schema: the engine finds nothing to change", async () => {
    const database = await createTestDatabase(dialect);
    made.push(database);
    expect(await migrate(database.url)).toEqual(readMigrations(dialect).map((m) => m.name));
    const engine = await openSchemaEngine(dialect, database.url);
    try {
      expect(await engine.diffDatabaseToSchema()).toBe("");
      // The committed migrations are also complete: nothing in schema.prisma is left unmigrated.
      expect(await engine.diffMigrationsToSchema()).toBe("");
    } finally {
      engine.free();
    }
  });

  it("apply once: a second start applies nothing and keeps the rows", async () => {
    const database = await createTestDatabase(dialect);
    made.push(database);
    await migrate(database.url);
    const db = openDatabase(database.url);
    await db.prisma.apiKey.create({ data: { id: "k1", name: "kept", prefix: "dbk_", keyHash: "h", scope: "read", createdAt: new Date() } });
    await db.close();
    expect(await migrate(database.url)).toEqual([]);
    const again = openDatabase(database.url);
    expect(await again.prisma.apiKey.count()).toBe(1);
    await again.close();
  });

  it("apply once when several instances start at the same moment", async () => {
    const database = await createTestDatabase(dialect);
    made.push(database);
    const results = await Promise.all([migrate(database.url), migrate(database.url), migrate(database.url)]);
    expect(results.flat()).toEqual(readMigrations(dialect).map((m) => m.name));
  });
});
