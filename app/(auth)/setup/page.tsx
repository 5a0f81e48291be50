import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ActionForm, Field, SubmitButton } from "@/components/action-form";
import { getDatabase } from "@/lib/server/db";
import { hasUsers } from "@/lib/server/dashboard/sign-in";
import { MIN_PASSWORD_LENGTH } from "@/lib/server/users";
import { setupAction } from "../actions";

export const metadata: Metadata = { title: "Set up · Deadbolt" };
// Decided per request: the answer changes the moment the first admin exists.
export const dynamic = "force-dynamic";

export default async function SetupPage() {
  // Only while nobody can sign in: afterwards admins add users from the Users page.
  if (await hasUsers(getDatabase())) redirect("/login");
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="text-lg font-semibold">Set up Deadbolt</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">Create the first administrator. They can add other users and API keys afterwards.</p>
      <ActionForm action={setupAction} className="space-y-4" testId="setup-form">
        <Field name="email" label="Email" type="email" autoComplete="username" required />
        <Field name="password" label="Password" type="password" autoComplete="new-password" required minLength={MIN_PASSWORD_LENGTH} hint={`At least ${MIN_PASSWORD_LENGTH} characters.`} />
        <Field name="confirm" label="Repeat the password" type="password" autoComplete="new-password" required />
        <SubmitButton className="w-full rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-800 disabled:opacity-60">Create the admin and sign in</SubmitButton>
      </ActionForm>
    </section>
  );
}
