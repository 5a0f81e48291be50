// A real Deadbolt HTTP server on a real, freshly migrated database, listening on a free port.
import type { FastifyInstance } from "fastify";
import { buildServer, type NextHandler } from "../../lib/http/server.ts";
import { createApiKey } from "../../lib/server/api-keys.ts";
import { readConfig, type Config } from "../../lib/server/config.ts";
import { openDatabase, type Database, type Dialect } from "../../lib/server/db.ts";
import { migrate } from "../../lib/server/migrate.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  url: string;
  db: Database;
  config: Config;
  app: FastifyInstance;
  writeKey: string;
  readKey: string;
  /** JSON request with the read-write key unless another key (or null: none) is given. */
  api<T = any>(method: string, path: string, body?: unknown, key?: string | null): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export async function startTestServer(dialect: Dialect, opts: { nextHandler?: NextHandler; env?: Record<string, string> } = {}): Promise<TestServer> {
  const database: TestDatabase = await createTestDatabase(dialect);
  await migrate(database.url);
  const db = openDatabase(database.url);
  const config = { ...readConfig({ ...opts.env, DATABASE_URL: database.url } as unknown as NodeJS.ProcessEnv), port: 0, host: "127.0.0.1" };
  const app = await buildServer({ db, config, nextHandler: opts.nextHandler, logLevel: "fatal" });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  config.baseUrl = url;
  const writeKey = (await createApiKey(db, { name: "test write", scope: "write" })).key;
  const readKey = (await createApiKey(db, { name: "test read", scope: "read" })).key;

  async function api(method: string, path: string, body?: unknown, key: string | null = writeKey) {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: leave the text
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  }

  return {
    url, db, config, app, writeKey, readKey, api,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
}
