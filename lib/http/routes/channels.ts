import type { FastifyInstance } from "fastify";
import { ChannelCreate } from "../../contracts/alerts.ts";
import { ChannelCreated, ChannelTestResult, ChannelView, DeliveryView } from "../../contracts/channels.ts";
import { ListQuery, listOf } from "../../contracts/common.ts";
import { createChannel, deleteChannel, listChannels, listDeliveries, sendTestNotification, toChannelView } from "../../server/channels.ts";
import { route, type ApiDeps } from "../route.ts";

export function channelRoutes(app: FastifyInstance, { db, config }: ApiDeps) {
  // GET /api/v1/channels — secrets never; full webhook URLs for read-write keys only.
  route(app, {
    method: "GET", url: "/api/v1/channels", access: "read", tag: "channels", summary: "List alert channels (keyset pages)",
    query: ListQuery, response: listOf(ChannelView),
    handler: async ({ query, principal }) => {
      const page = await listChannels(db, query);
      return { items: page.items.map((c) => toChannelView(c, { withSecrets: principal?.scope === "write" })), nextCursor: page.nextCursor };
    },
  });

  // POST /api/v1/channels — a webhook's signing secret is in this answer and nowhere else.
  route(app, {
    method: "POST", url: "/api/v1/channels", access: "write", tag: "channels", status: 201,
    summary: "Create an email or webhook channel; a webhook without a secret gets a generated one, returned once",
    body: ChannelCreate, response: ChannelCreated,
    handler: async ({ body }) => createChannel(db, body),
  });

  // DELETE /api/v1/channels/{id}
  route(app, {
    method: "DELETE", url: "/api/v1/channels/:id", access: "write", tag: "channels", summary: "Delete a channel with its delivery log", errors: [404],
    handler: async ({ params }) => {
      await deleteChannel(db, params.id);
      return { deleted: true };
    },
  });

  // POST /api/v1/channels/{id}/test — 200 with ok: false when the delivery failed.
  route(app, {
    method: "POST", url: "/api/v1/channels/:id/test", access: "write", tag: "channels", errors: [404],
    summary: "Send a test notification now (one attempt, not retried) and report how it went",
    response: ChannelTestResult,
    handler: async ({ params }) => sendTestNotification(db, params.id, { baseUrl: config.baseUrl, smtpUrl: config.smtpUrl, alertFrom: config.alertFrom }),
  });

  // GET /api/v1/channels/{id}/deliveries
  route(app, {
    method: "GET", url: "/api/v1/channels/:id/deliveries", access: "read", tag: "channels", errors: [404],
    summary: "A channel's delivery attempts, newest first (keyset pages)",
    query: ListQuery, response: listOf(DeliveryView),
    handler: async ({ params, query }) => listDeliveries(db, params.id, query),
  });
}
