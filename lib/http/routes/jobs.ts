import type { FastifyInstance } from "fastify";
import { JobCreate, JobListQuery, JobPatch, JobReplace, JobView } from "../../contracts/jobs.ts";
import { listOf } from "../../contracts/common.ts";
import { deleteJob } from "../../server/delete-job.ts";
import { toJobView, type JobRow } from "../../server/job-view.ts";
import { getJobOrThrow, listJobs } from "../../server/read-jobs.ts";
import { createJob, patchJob, replaceJob } from "../../server/save-job.ts";
import { setJobPaused } from "../../server/set-job-paused.ts";
import type { ApiPrincipal } from "../../server/api-keys.ts";
import { route, type ApiDeps } from "../route.ts";

export function jobRoutes(app: FastifyInstance, { db, config }: ApiDeps) {
  // A read-only key never sees ping keys (PRODUCT.md: Deployment).
  const view = (job: JobRow, principal: ApiPrincipal | null) =>
    toJobView(job, { withSecrets: principal?.scope === "write", baseUrl: config.baseUrl, now: new Date() });

  // GET /api/v1/jobs
  route(app, {
    method: "GET", url: "/api/v1/jobs", access: "read", tag: "jobs", summary: "List jobs by slug (keyset pages; ?tag= filters)",
    query: JobListQuery, response: listOf(JobView),
    handler: async ({ query, principal }) => {
      const page = await listJobs(db, query);
      return { items: page.items.map((job) => view(job, principal)), nextCursor: page.nextCursor };
    },
  });

  // POST /api/v1/jobs
  route(app, {
    method: "POST", url: "/api/v1/jobs", access: "write", tag: "jobs", summary: "Create a job", status: 201, errors: [409],
    body: JobCreate, response: JobView,
    handler: async ({ body, principal }) => view(await createJob(db, body), principal),
  });

  // GET /api/v1/jobs/{slug}
  route(app, {
    method: "GET", url: "/api/v1/jobs/:slug", access: "read", tag: "jobs", summary: "Read a job", errors: [404], response: JobView,
    handler: async ({ params, principal }) => view(await getJobOrThrow(db, params.slug), principal),
  });

  // PUT /api/v1/jobs/{slug} — upsert: jobs as code
  route(app, {
    method: "PUT", url: "/api/v1/jobs/:slug", access: "write", tag: "jobs",
    summary: "Create or replace a job (201 when created, 200 when replaced); its ping key and history are kept",
    body: JobReplace, response: JobView,
    handler: async ({ params, body, principal, reply }) => {
      const { job, created } = await replaceJob(db, JobCreate.shape.slug.parse(params.slug), body);
      return reply.code(created ? 201 : 200).send(view(job, principal));
    },
  });

  // PATCH /api/v1/jobs/{slug}
  route(app, {
    method: "PATCH", url: "/api/v1/jobs/:slug", access: "write", tag: "jobs", summary: "Change some fields of a job", errors: [404],
    body: JobPatch, response: JobView,
    handler: async ({ params, body, principal }) => view(await patchJob(db, params.slug, body), principal),
  });

  // DELETE /api/v1/jobs/{slug}
  route(app, {
    method: "DELETE", url: "/api/v1/jobs/:slug", access: "write", tag: "jobs", summary: "Delete a job with its history", errors: [404],
    handler: async ({ params }) => {
      await deleteJob(db, params.slug);
      return { deleted: true };
    },
  });

  // POST /api/v1/jobs/{slug}/pause and /resume
  for (const action of ["pause", "resume"] as const) {
    route(app, {
      method: "POST", url: `/api/v1/jobs/:slug/${action}`, access: "write", tag: "jobs", errors: [404], response: JobView,
      summary: action === "pause" ? "Pause a job: it raises no alerts until resumed" : "Resume a paused job",
      handler: async ({ params, principal }) => view(await setJobPaused(db, params.slug, action === "pause"), principal),
    });
  }
}
