import type { Metadata } from "next";
import { ActionForm, Field, SubmitButton } from "@/components/action-form";
import { inputClass } from "@/components/styles";
import { formatUtc } from "@/components/format";
import { PageHeader, Section } from "@/components/page-header";
import { getDatabase } from "@/lib/server/db";
import { listUsers } from "@/lib/server/dashboard/sign-in";
import { MIN_PASSWORD_LENGTH } from "@/lib/server/users";
import { requireAdmin } from "../../../_lib/auth";
import { createUserAction } from "../actions";

export const metadata: Metadata = { title: "Users · Deadbolt" };

export default async function UsersPage() {
  const me = await requireAdmin();
  const users = await listUsers(getDatabase());
  return (
    <>
      <PageHeader title="Users" subtitle="Members see and edit jobs, incidents, leases and channels; admins also manage users and API keys." />
      <Section title="Add a user">
        <ActionForm action={createUserAction} testId="user-form" className="grid grid-cols-1 items-end gap-4 sm:grid-cols-[1fr_1fr_10rem_auto]">
          <Field name="email" label="Email" type="email" autoComplete="off" />
          <Field name="password" label="Password" type="password" autoComplete="new-password" hint={`At least ${MIN_PASSWORD_LENGTH} characters.`} />
          <Field name="role" label="Role">
            <select id="field-role" name="role" defaultValue="member" className={inputClass()}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          </Field>
          <SubmitButton>Add user</SubmitButton>
        </ActionForm>
      </Section>
      <Section title="Users" testId="users">
        <ul className="divide-y divide-slate-100 text-sm">
          {users.map((u) => (
            <li key={u.id} data-testid="user-row" className="flex flex-wrap items-center gap-x-3 py-2">
              <span className="font-medium">{u.email}</span>
              <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs">{u.role}</span>
              {u.id === me.id && <span className="text-xs text-slate-500">(you)</span>}
              <span className="ml-auto text-xs text-slate-500">added {formatUtc(u.createdAt.toISOString())}</span>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
