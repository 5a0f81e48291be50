import type { FastifyInstance } from "fastify";
import { AppError } from "../../contracts/errors.ts";
import { ListQuery, listOf } from "../../contracts/common.ts";
import { RunClaim, RunClaimed, RunDetail, RunFinish, RunHeartbeat, RunView } from "../../contracts/runs.ts";
import { claimRun } from "../../server/claim-run.ts";
import { getRunOrThrow, listRuns } from "../../server/read-runs.ts";
import { finishRun, heartbeatRun } from "../../server/run-lease.ts";
import { route, type ApiDeps } from "../route.ts";

export function runRoutes(app: FastifyInstance, { db }: ApiDeps) {
  // POST /api/v1/jobs/{slug}/runs
  route(app, {
    method: "POST", url: "/api/v1/jobs/:slug/runs", access: "write", tag: "runs", status: 201,
    summary: "Claim a run: takes the job's lease and its slot in one step. 409 lease_held / slot_done (recorded as refused runs)",
    body: RunClaim, response: RunClaimed, errors: [404, 409],
    handler: async ({ params, body, request }) => {
      const result = await claimRun(db, params.slug, { ...body, holder: body.holder ?? request.ip });
      if (result.claimed) {
        const { claimed: _claimed, ...rest } = result;
        return { ...rest, slot: rest.slot.toISOString(), expiresAt: rest.expiresAt.toISOString() };
      }
      if (result.reason === "slot_done") {
        throw new AppError("slot_done", `slot ${result.slot.toISOString()} already ran (run ${result.doneBy.runId} on ${result.doneBy.holder ?? "an unnamed holder"}, ${result.doneBy.outcome})`, undefined, {
          reason: "slot_done", runId: result.runId, slot: result.slot.toISOString(), doneBy: result.doneBy,
        });
      }
      throw new AppError("lease_held", `job is running on ${result.holder ?? "another holder"} (lease until ${result.expiresAt.toISOString()})`, undefined, {
        reason: "lease_held", runId: result.runId, slot: result.slot.toISOString(), holder: result.holder, expiresAt: result.expiresAt.toISOString(),
      });
    },
  });

  // POST /api/v1/runs/{id}/heartbeat
  route(app, {
    method: "POST", url: "/api/v1/runs/:id/heartbeat", access: "write", tag: "runs",
    summary: "Renew the run's lease (409 lease_lost when it expired or was taken over; the run is marked)", body: RunHeartbeat, errors: [404, 409],
    handler: async ({ params, body }) => {
      const renewed = await heartbeatRun(db, params.id, body);
      return { expiresAt: renewed.expiresAt.toISOString(), fencingToken: renewed.fencingToken };
    },
  });

  // POST /api/v1/runs/{id}/finish
  route(app, {
    method: "POST", url: "/api/v1/runs/:id/finish", access: "write", tag: "runs",
    summary: "Record the exit code and output tail, release the lease. 409 lease_lost: recorded, but the lease had expired or been taken over",
    body: RunFinish, errors: [404, 409],
    handler: async ({ params, body }) => {
      const { leaseName: _leaseName, ...finished } = await finishRun(db, params.id, body);
      return finished;
    },
  });

  // GET /api/v1/jobs/{slug}/runs
  route(app, {
    method: "GET", url: "/api/v1/jobs/:slug/runs", access: "read", tag: "runs", summary: "A job's runs, newest first (keyset pages: ?cursor=)",
    query: ListQuery, response: listOf(RunView), errors: [404],
    handler: ({ params, query }) => listRuns(db, params.slug, query),
  });

  // GET /api/v1/runs/{id}
  route(app, {
    method: "GET", url: "/api/v1/runs/:id", access: "read", tag: "runs", summary: "One run with its output, pings and lease events",
    response: RunDetail, errors: [404],
    handler: ({ params }) => getRunOrThrow(db, params.id),
  });
}
