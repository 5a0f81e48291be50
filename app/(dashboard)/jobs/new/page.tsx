import type { Metadata } from "next";
import { JobForm } from "@/components/job-form";
import { PageHeader } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { listChannelChoices } from "@/lib/server/dashboard/channels-page";
import { requireUser } from "../../../_lib/auth";
import { createJobAction } from "../actions";
import { NEW_JOB_VALUES, timeZones } from "../form-values";

export const metadata: Metadata = { title: "New job · Deadbolt" };

export default async function NewJobPage() {
  await requireUser();
  const channels = await listChannelChoices(getDatabase());
  return (
    <>
      <PageHeader title="New job" subtitle="What should run, when, and what counts as wrong." />
      <JobForm mode="create" initial={NEW_JOB_VALUES} channels={channels} timezones={timeZones()} action={createJobAction} />
    </>
  );
}
