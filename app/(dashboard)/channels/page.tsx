import type { Metadata } from "next";
import { ChannelForm, ChannelTestButton } from "@/components/channel-form";
import { ConfirmButton } from "@/components/confirm-button";
import { formatRelative, formatUtc } from "@/components/format";
import { Icon } from "@/components/icons";
import { PageHeader, Section } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { readChannelsPage } from "@/lib/server/dashboard/channels-page";
import { requireUser } from "../../_lib/auth";
import { createChannelAction, deleteChannelAction, testChannelAction } from "./actions";

export const metadata: Metadata = { title: "Channels · Deadbolt" };

export default async function ChannelsPage() {
  await requireUser();
  const channels = await readChannelsPage(getDatabase());
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader title="Channels" subtitle="Where alerts go. Link channels to jobs on each job's edit page." />
      <Section title="Add a channel">
        <ChannelForm action={createChannelAction} />
      </Section>
      {channels.length === 0 ? (
        <p className="text-sm text-slate-500">No channels yet.</p>
      ) : (
        channels.map(({ channel, deliveries }) => (
          <Section
            key={channel.id}
            title={channel.name}
            testId="channel"
            actions={
              <div className="flex flex-wrap items-start gap-2">
                <ChannelTestButton action={testChannelAction} channelId={channel.id} />
                <ConfirmButton action={deleteChannelAction} hidden={{ id: channel.id }} label="Delete" confirmLabel="Delete channel" tone="danger"
                  question="Delete this channel and its delivery log? Jobs stop alerting through it." />
              </div>
            }
          >
            <p className="mb-3 break-all text-sm text-slate-600">
              {channel.kind === "email" ? <>Email to <b>{channel.address}</b></> : <>Webhook {channel.format === "slack" ? "(Slack format) " : ""}to <b>{channel.url}</b>{channel.signed ? ", signed" : ""}</>}
              {channel.remindEveryMinutes ? ` · reminds every ${channel.remindEveryMinutes} min` : ""}
            </p>
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Delivery log</h3>
            {deliveries.length === 0 ? (
              <p className="text-sm text-slate-500">Nothing sent yet.</p>
            ) : (
              <ul className="divide-y divide-slate-100 text-sm" data-testid="delivery-log">
                {deliveries.map((d) => (
                  <li key={d.id} data-testid="delivery" data-ok={d.ok} className="flex flex-wrap items-center gap-x-3 py-1">
                    <span className={`inline-flex items-center gap-1 font-medium ${d.ok ? "text-emerald-700" : "text-red-700"}`}>
                      <Icon name={d.ok ? "check" : "cross"} className="h-3.5 w-3.5" />{d.ok ? "delivered" : "failed"}
                    </span>
                    <span className="text-slate-700">{d.event}</span>
                    <span className="min-w-0 flex-1 truncate text-slate-600" title={d.title}>{d.title}</span>
                    <span className="text-xs text-slate-500">{d.responseStatus ? `HTTP ${d.responseStatus}` : d.error ?? ""} · {d.durationMs} ms</span>
                    <span className="text-xs text-slate-500" title={formatUtc(d.at)}>{formatRelative(d.at, now)}</span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        ))
      )}
    </>
  );
}
