import type { FastifyInstance } from "fastify";
import { HealthView } from "../../contracts/health.ts";
import { checkHealth } from "../../server/check-health.ts";
import { route, type ApiDeps } from "../route.ts";
import { VERSION } from "../version.ts";

export function healthRoutes(app: FastifyInstance, { db }: ApiDeps) {
  // GET /api/v1/health
  route(app, {
    method: "GET",
    url: "/api/v1/health",
    access: "public",
    tag: "health",
    summary: "Liveness and database reachability (503 when the database cannot be reached)",
    response: HealthView,
    errors: [503],
    handler: async ({ reply }) => {
      const database = await checkHealth(db);
      if (!database.reachable) reply.code(503);
      return reply.send({ status: database.reachable ? "ok" : "degraded", database: { dialect: db.dialect, ...database }, version: VERSION });
    },
  });
}
