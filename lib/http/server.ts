// The one HTTP server: Fastify serves the API (/api/v1, /ping, /metrics, /badge) on a lean path and
// hands every other request to Next.js for the dashboard. Route handlers of Next.js cost ~0.9 ms of
// CPU a request (../shared/NOTES.md), too much for the calls jobs make at volume.
import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { AppError } from "../contracts/errors.ts";
import type { Config } from "../server/config.ts";
import type { Database } from "../server/db.ts";
import { authorize } from "./auth.ts";
import { mapError } from "./errors.ts";
import { channelRoutes } from "./routes/channels.ts";
import { healthRoutes } from "./routes/health.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { incidentRoutes } from "./routes/incidents.ts";
import { leaseRoutes } from "./routes/leases.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { pingRoutes } from "./routes/pings.ts";
import { runRoutes } from "./routes/runs.ts";

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface ServerOptions {
  db: Database;
  config: Config;
  /** Next.js's request handler; without it, non-API paths answer 404 (API-only tests, `DEADBOLT_DASHBOARD=off`). */
  nextHandler?: NextHandler;
  logLevel?: string;
}

/** JSON request bodies above this are refused with 413 (ping bodies have their own limit). */
export const API_BODY_LIMIT = 1024 * 1024;

function sendError(reply: FastifyReply, error: unknown) {
  const mapped = mapError(error);
  if (mapped.unexpected) reply.log.error({ err: error }, "unexpected error");
  if (mapped.status === 401) reply.header("www-authenticate", 'Bearer realm="deadbolt"');
  return reply.code(mapped.status).send(mapped.body);
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { db, config } = options;
  const app = Fastify({
    logger: { level: options.logLevel ?? process.env.LOG_LEVEL ?? "warn" },
    bodyLimit: API_BODY_LIMIT,
    // Behind a proxy, X-Forwarded-For names the job's host (kept with every ping).
    trustProxy: config.trustProxy,
    // Node's default 5 s keep-alive drops idle cron clients mid-reuse; a little longer is kinder.
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
  });

  app.decorateRequest("principal", null);
  app.setErrorHandler((error, _request, reply) => sendError(reply, error));

  await app.register(async (api) => {
    // An empty body with a JSON content type is "no body", not an error: `curl -X POST -H …` on /pause.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
      if (body === "") return done(null, undefined);
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new AppError("invalid_json", "request body is not valid JSON"), undefined);
      }
    });
    api.addHook("onRequest", async (request) => authorize(db, request));

    const deps = { db, config };
    healthRoutes(api, deps);
    jobRoutes(api, deps);
    leaseRoutes(api, deps);
    runRoutes(api, deps);
    channelRoutes(api, deps);
    incidentRoutes(api, deps);
    metricsRoutes(api, deps);
    openApiRoutes(api, config.baseUrl);

    // Unknown API paths are the API's 404, never Next.js's HTML page.
    for (const url of ["/api", "/api/*", "/ping", "/ping/*"]) {
      api.all(url, { config: { access: "public" } }, async (request) => {
        throw new AppError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`);
      });
    }
  });

  // Ping URLs: any body, any content type (`curl -d` sends form-urlencoded), kept as output.
  await app.register(async (pings) => pingRoutes(pings, { db, config }));

  // Everything else is the dashboard. Its own scope: Next.js reads the raw body itself (route
  // handlers, server actions), so no parser may consume it here.
  await app.register(async (dashboard) => {
    dashboard.removeAllContentTypeParsers();
    dashboard.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const handler = options.nextHandler;
    dashboard.all("/*", { config: { access: "public" } }, async (request, reply) => {
      if (!handler) throw new AppError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`);
      reply.hijack();
      // After hijack Fastify's error handler no longer runs: answer a failed render ourselves.
      await handler(request.raw, reply.raw).catch((error) => {
        request.log.error({ err: error }, "dashboard request failed");
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { "content-type": "text/plain" });
          reply.raw.end("internal error");
        } else reply.raw.destroy();
      });
    });
  });

  return app;
}
