// Ping URLs: the dead man's switch for jobs that can only `curl`. GET, POST and HEAD; any body, any
// content type (`curl -d` sends form-urlencoded), kept as text. The ping key in the URL is the only
// credential. Registered in its own plugin scope by lib/http/server.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { AppError } from "../../contracts/errors.ts";
import { OUTPUT_TAIL_BYTES } from "../../domain/runs.ts";
import { recordPing, type PingKind } from "../../server/record-ping.ts";
import { route, type ApiDeps } from "../route.ts";

/** Bodies above this are refused with 413; below it, the last OUTPUT_TAIL_BYTES are kept. */
export const PING_BODY_LIMIT = 10 * 1024 * 1024;

const METHODS: ("GET" | "POST" | "HEAD")[] = ["GET", "POST", "HEAD"];
const PING_KEY = /^[A-Za-z0-9_-]{22}$/;
const EXIT_CODE = /^\d{1,3}$/;

const PingQuery = z.object({
  rid: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, "must be letters, digits, '.', '_' or '-'").optional(),
});

export function pingRoutes(app: FastifyInstance, { db }: ApiDeps) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: PING_BODY_LIMIT }, (_request, body, done) => done(null, body));
  // On every answer of this scope, errors included: clients learn how much of their output is kept.
  const bodyLimitHeader = String(OUTPUT_TAIL_BYTES);
  app.addHook("onRequest", async (_request, reply) => {
    reply.header("ping-body-limit", bodyLimitHeader).header("cache-control", "no-store");
  });

  const ping = async (kind: PingKind, request: FastifyRequest, reply: FastifyReply, rid: string | undefined, exitCode: number | null = null) => {
    const key = (request.params as { key: string }).key;
    // A malformed key cannot name a job: spare the database the lookup.
    const result = PING_KEY.test(key)
      ? await recordPing(db, {
          pingKey: key, kind, exitCode, rid: rid ?? null, body: Buffer.isBuffer(request.body) ? request.body : null, method: request.method,
          sourceIp: request.ip ?? null, userAgent: request.headers["user-agent"] ?? null,
        })
      : { found: false as const };
    if (!result.found) throw new AppError("not_found", "no job has this ping key");
    return reply.code(200).type("text/plain; charset=utf-8").send("OK");
  };

  const routes: { url: string; kind: PingKind; summary: string }[] = [
    { url: "/ping/:key", kind: "success", summary: "Report success (the body is kept as the run's output)" },
    { url: "/ping/:key/start", kind: "start", summary: "Report a start (a later finish with the same ?rid=, or none, gets its duration)" },
    { url: "/ping/:key/fail", kind: "fail", summary: "Report a failure (exit code 1)" },
    { url: "/ping/:key/log", kind: "log", summary: "Store a message; changes no run" },
  ];
  for (const { url, kind, summary } of routes) {
    // GET|POST|HEAD /ping/{key}[/start|/fail|/log]
    route(app, {
      method: METHODS, url, access: "ping", tag: "pings", summary, query: PingQuery, errors: [404, 413, 422],
      handler: ({ query, request, reply }) => ping(kind, request, reply, query.rid),
    });
  }

  // GET|POST|HEAD /ping/{key}/{exitCode}
  route(app, {
    method: METHODS, url: "/ping/:key/:exitCode", access: "ping", tag: "pings", summary: "Report an exit code, 0–255 (non-zero: failed)",
    query: PingQuery, errors: [404, 413, 422],
    handler: ({ params, query, request, reply }) => {
      if (!EXIT_CODE.test(params.exitCode)) throw new AppError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`);
      const exitCode = Number(params.exitCode);
      if (exitCode > 255) throw new AppError("validation_failed", "must be an integer from 0 to 255", "exitCode");
      return ping("exit", request, reply, query.rid, exitCode);
    },
  });
}
