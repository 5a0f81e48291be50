import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { JobForm } from "@/components/job-form";
import { PageHeader } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { listChannelChoices } from "@/lib/server/dashboard/channels-page";
import { requireUser } from "../../../../_lib/auth";
import { updateJobAction } from "../../actions";
import { timeZones, valuesOf } from "../../form-values";

export const metadata: Metadata = { title: "Edit job · Deadbolt" };

export default async function EditJobPage({ params }: { params: Promise<{ slug: string }> }) {
  await requireUser();
  const { slug } = await params;
  const db = getDatabase();
  const [job, channels] = await Promise.all([
    db.prisma.job.findUnique({ where: { slug }, include: { channels: { select: { channelId: true } } } }),
    listChannelChoices(db),
  ]);
  if (!job) notFound();
  return (
    <>
      <PageHeader title={`Edit ${job.name}`} subtitle={<span className="font-mono">{job.slug}</span>} />
      <JobForm mode="edit" initial={valuesOf(job)} channels={channels} timezones={timeZones()} action={updateJobAction.bind(null, job.slug)} />
    </>
  );
}
