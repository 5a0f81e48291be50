import type { FastifyInstance } from "fastify";
import { listOf } from "../../contracts/common.ts";
import { IncidentListQuery, IncidentView } from "../../contracts/incidents.ts";
import { listIncidents } from "../../server/read-incidents.ts";
import { route, type ApiDeps } from "../route.ts";

export function incidentRoutes(app: FastifyInstance, { db }: ApiDeps) {
  // GET /api/v1/incidents
  route(app, {
    method: "GET", url: "/api/v1/incidents", access: "read", tag: "incidents", summary: "Incidents newest first (?status=open|resolved, keyset pages)",
    query: IncidentListQuery, response: listOf(IncidentView),
    handler: ({ query }) => listIncidents(db, query),
  });

  // GET /api/v1/jobs/{slug}/incidents
  route(app, {
    method: "GET", url: "/api/v1/jobs/:slug/incidents", access: "read", tag: "incidents", summary: "A job's incidents newest first",
    query: IncidentListQuery, response: listOf(IncidentView), errors: [404],
    handler: ({ params, query }) => listIncidents(db, { ...query, jobSlug: params.slug }),
  });
}
