// Every API route is declared once with its contract: the same declaration registers the Fastify
// route, validates input, enforces the key scope and feeds the OpenAPI document.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import type { z } from "zod";
import type { ApiPrincipal } from "../server/api-keys.ts";
import type { Database } from "../server/db.ts";
import type { Config } from "../server/config.ts";

/** "public": no key; "read": any key; "write": a read-write key; "ping": authorised by the ping key in the URL. */
export type Access = "public" | "read" | "write" | "ping";

export interface RouteContext<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  principal: ApiPrincipal | null;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteSpec<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined> {
  method: HTTPMethods | HTTPMethods[];
  url: string;
  access: Access;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  /** Response schema of the success status, for the OpenAPI document. */
  response?: z.ZodType;
  status?: number;
  /** Error statuses this route answers besides the usual ones (400/401/403/422/500). */
  errors?: number[];
  handler: (ctx: RouteContext<B extends z.ZodType ? z.infer<B> : undefined, Q extends z.ZodType ? z.infer<Q> : undefined>) => Promise<unknown> | unknown;
}

export interface ApiDeps {
  db: Database;
  config: Config;
}

export const declaredRoutes: RouteSpec<z.ZodType | undefined, z.ZodType | undefined>[] = [];

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: ApiPrincipal | null;
  }
}

export function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(app: FastifyInstance, spec: RouteSpec<B, Q>) {
  if (!declaredRoutes.some((r) => r.url === spec.url && String(r.method) === String(spec.method))) {
    declaredRoutes.push(spec as unknown as RouteSpec<z.ZodType | undefined, z.ZodType | undefined>);
  }
  app.route({
    method: spec.method,
    url: spec.url,
    config: { access: spec.access },
    handler: async (request, reply) => {
      const body = spec.body ? spec.body.parse(request.body ?? {}) : undefined;
      const query = spec.query ? spec.query.parse(request.query ?? {}) : undefined;
      const result = await spec.handler({
        body: body as never,
        query: query as never,
        params: request.params as Record<string, string>,
        principal: request.principal,
        request,
        reply,
      });
      if (reply.sent) return reply;
      reply.code(spec.status ?? 200);
      return result ?? {};
    },
  });
}
