import type { FastifyInstance } from "fastify";
import { INCIDENT_KINDS } from "../../contracts/alerts.ts";
import { readGauges } from "../../server/read-metrics.ts";
import { route, type ApiDeps } from "../route.ts";
import { VERSION } from "../version.ts";

export function metricsRoutes(app: FastifyInstance, { db }: ApiDeps) {
  // GET /metrics — Prometheus text format; scrape with a read-only key (bearer_token in Prometheus).
  route(app, {
    method: "GET", url: "/metrics", access: "read", tag: "meta", summary: "Prometheus metrics (text format)",
    handler: async ({ reply }) => {
      const g = await readGauges(db);
      const open = new Map(g.openIncidents.map((i) => [i.kind, i.count]));
      const lines = [
        "# HELP deadbolt_info Deadbolt version.", "# TYPE deadbolt_info gauge", `deadbolt_info{version="${VERSION}",database="${db.dialect}"} 1`,
        "# HELP deadbolt_jobs Jobs configured.", "# TYPE deadbolt_jobs gauge", `deadbolt_jobs ${g.jobs}`,
        "# HELP deadbolt_jobs_paused Jobs paused.", "# TYPE deadbolt_jobs_paused gauge", `deadbolt_jobs_paused ${g.pausedJobs}`,
        "# HELP deadbolt_incidents_open Open incidents by kind.", "# TYPE deadbolt_incidents_open gauge",
        ...INCIDENT_KINDS.map((kind) => `deadbolt_incidents_open{kind="${kind}"} ${open.get(kind) ?? 0}`),
        "# HELP deadbolt_notifications Notifications not yet sent (pending) or given up (failed).", "# TYPE deadbolt_notifications gauge",
        ...["pending", "failed"].map((status) => `deadbolt_notifications{status="${status}"} ${g.notifications.find((n) => n.status === status)?.count ?? 0}`),
        "# HELP deadbolt_leases_held Leases currently held.", "# TYPE deadbolt_leases_held gauge", `deadbolt_leases_held ${g.heldLeases}`,
        "# HELP deadbolt_process_uptime_seconds Seconds since this instance started.", "# TYPE deadbolt_process_uptime_seconds gauge",
        `deadbolt_process_uptime_seconds ${Math.round(process.uptime())}`,
      ];
      return reply.type("text/plain; version=0.0.4; charset=utf-8").send(lines.join("\n") + "\n");
    },
  });
}
