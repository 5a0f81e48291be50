// The channels page: each channel with its newest delivery attempts.
import type { Database } from "../db.ts";
import { listChannels, listDeliveries, toChannelView } from "../channels.ts";

export const DELIVERIES_PER_CHANNEL = 10;

export async function readChannelsPage(db: Database) {
  const { items } = await listChannels(db, { limit: 200 });
  return Promise.all(
    items.map(async (row) => ({
      // The dashboard is for signed-in operators: they see webhook URLs in full, never the secret.
      channel: toChannelView(row, { withSecrets: true }),
      deliveries: (await listDeliveries(db, row.id, { limit: DELIVERIES_PER_CHANNEL })).items,
    })),
  );
}

export async function listChannelChoices(db: Database) {
  return db.prisma.channel.findMany({ orderBy: { id: "asc" }, select: { id: true, name: true, kind: true }, take: 500 });
}
