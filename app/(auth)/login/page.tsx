import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ActionForm, Field, SubmitButton } from "@/components/action-form";
import { getDatabase } from "@/lib/server/db";
import { hasUsers } from "@/lib/server/dashboard/sign-in";
import { currentUser, safeNext } from "../../_lib/auth";
import { signInAction } from "../actions";

export const metadata: Metadata = { title: "Sign in · Deadbolt" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await currentUser()) redirect(safeNext(next));
  if (!(await hasUsers(getDatabase()))) redirect("/setup");
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
      <ActionForm action={signInAction} className="space-y-4" testId="login-form">
        <input type="hidden" name="next" value={safeNext(next)} />
        <Field name="email" label="Email" type="email" autoComplete="username" required />
        <Field name="password" label="Password" type="password" autoComplete="current-password" required />
        <SubmitButton className="w-full rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-800 disabled:opacity-60">Sign in</SubmitButton>
      </ActionForm>
    </section>
  );
}
