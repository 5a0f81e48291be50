import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { declaredRoutes, route } from "../route.ts";
import { STATUS_OF } from "../errors.ts";
import { VERSION } from "../version.ts";

const ErrorSchema = z.object({ error: z.object({ code: z.enum(Object.keys(STATUS_OF) as [string, ...string[]]), message: z.string(), field: z.string().optional() }) });

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

/** OpenAPI 3.1 from the routes' own contracts: the document cannot drift from what is served. */
export function buildOpenApi(baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of declaredRoutes) {
    const path = spec.url.replace(/:([A-Za-z]+)/g, "{$1}");
    const params = [...spec.url.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const query = spec.query
      ? Object.entries((jsonSchema(spec.query, "input").properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({ name, in: "query", required: false, schema }))
      : [];
    const errorStatuses = [...new Set([...(spec.access === "read" || spec.access === "write" ? [401] : []), ...(spec.access === "write" ? [403] : []), ...(spec.body ? [400, 413, 422] : []), ...(spec.errors ?? [])])];
    const operation = {
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.access === "read" || spec.access === "write" ? { security: [{ apiKey: [] }] } : { security: [] }),
      parameters: [...params, ...query],
      ...(spec.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(spec.body, "input") } } } } : {}),
      responses: {
        [String(spec.status ?? 200)]: { description: "OK", ...(spec.response ? { content: { "application/json": { schema: jsonSchema(spec.response, "output") } } } : {}) },
        ...Object.fromEntries(errorStatuses.map((s) => [String(s), { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }])),
      },
    };
    for (const method of [spec.method].flat()) (paths[path] ??= {})[method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Deadbolt API", version: VERSION, description: "Leases, run claims, ping URLs and the run ledger. Errors are {\"error\": {\"code\", \"message\"}}." },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key: `deadbolt keys create --name NAME`" } },
      schemas: { Error: jsonSchema(ErrorSchema, "output") },
    },
    paths,
  };
}

export function openApiRoutes(app: FastifyInstance, baseUrl: string) {
  let cached: ReturnType<typeof buildOpenApi> | null = null;
  // GET /api/v1/openapi.json
  route(app, {
    method: "GET", url: "/api/v1/openapi.json", access: "public", tag: "meta", summary: "This document",
    handler: () => (cached ??= buildOpenApi(baseUrl)),
  });
}
