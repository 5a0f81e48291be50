import type { FastifyInstance } from "fastify";
import { AppError } from "../../contracts/errors.ts";
import { ListQuery, listOf } from "../../contracts/common.ts";
import { LeaseAcquire, LeaseAcquired, LeaseDetail, LeaseName, LeaseRelease, LeaseRenew, LeaseValidate, LeaseView } from "../../contracts/leases.ts";
import { acquireLease } from "../../server/acquire-lease.ts";
import { getLeaseOrThrow, listLeases } from "../../server/read-leases.ts";
import { releaseLease } from "../../server/release-lease.ts";
import { renewLease } from "../../server/renew-lease.ts";
import { validateFence } from "../../server/validate-fence.ts";
import { route, type ApiDeps } from "../route.ts";

export function leaseRoutes(app: FastifyInstance, { db }: ApiDeps) {
  const nameOf = (params: Record<string, string>) => LeaseName.parse(params.name);

  // POST /api/v1/leases/{name}/acquire
  route(app, {
    method: "POST", url: "/api/v1/leases/:name/acquire", access: "write", tag: "leases",
    summary: "Acquire a lease: 200 with a holder token and a fencing token, or 409 while another holder has it (waitSeconds: wait up to that long)",
    body: LeaseAcquire, response: LeaseAcquired, errors: [409],
    handler: async ({ params, body, request, reply }) => {
      const result = await acquireLease(db, nameOf(params), { ...body, holder: body.holder ?? request.ip });
      if (!result.acquired) {
        throw new AppError("lease_held", `lease is held by ${result.holder ?? "another holder"} until ${result.expiresAt.toISOString()}`, undefined, {
          acquired: false, holder: result.holder, expiresAt: result.expiresAt.toISOString(),
        });
      }
      return reply.send({ acquired: true, token: result.token, fencingToken: result.fencingToken, expiresAt: result.expiresAt.toISOString(), holder: result.holder });
    },
  });

  // POST /api/v1/leases/{name}/renew
  route(app, {
    method: "POST", url: "/api/v1/leases/:name/renew", access: "write", tag: "leases", summary: "Extend a held lease by ttlSeconds from now (409 when the token no longer holds it)",
    body: LeaseRenew, errors: [404, 409],
    handler: async ({ params, body }) => {
      const lease = await renewLease(db, nameOf(params), body);
      return { renewed: true, expiresAt: lease.expiresAt.toISOString(), fencingToken: lease.fencingToken };
    },
  });

  // POST /api/v1/leases/{name}/release
  route(app, {
    method: "POST", url: "/api/v1/leases/:name/release", access: "write", tag: "leases",
    summary: "Release a held lease (409 when the token no longer holds it; a stale holder's release changes nothing)",
    body: LeaseRelease, errors: [404, 409],
    handler: async ({ params, body }) => {
      const { freeAt } = await releaseLease(db, nameOf(params), body.token);
      return { released: true, freeAt: freeAt.toISOString() };
    },
  });

  // POST /api/v1/leases/{name}/validate
  route(app, {
    method: "POST", url: "/api/v1/leases/:name/validate", access: "read", tag: "leases",
    summary: "Is this fencing token the current holder's? 200 if so, 409 when it is stale",
    body: LeaseValidate, errors: [404, 409],
    handler: async ({ params, body }) => {
      const result = await validateFence(db, nameOf(params), body.fencingToken);
      return { ...result, expiresAt: result.expiresAt.toISOString() };
    },
  });

  // GET /api/v1/leases
  route(app, {
    method: "GET", url: "/api/v1/leases", access: "read", tag: "leases", summary: "Leases by name (keyset pages)",
    query: ListQuery, response: listOf(LeaseView),
    handler: ({ query }) => listLeases(db, query),
  });

  // GET /api/v1/leases/{name}
  route(app, {
    method: "GET", url: "/api/v1/leases/:name", access: "read", tag: "leases", summary: "A lease's state and its newest events",
    response: LeaseDetail, errors: [404],
    handler: ({ params }) => getLeaseOrThrow(db, nameOf(params)),
  });
}
