import type { Metadata } from "next";
import { ActionForm, Field, SubmitButton } from "@/components/action-form";
import { inputClass } from "@/components/styles";
import { ConfirmButton } from "@/components/confirm-button";
import { formatRelative, formatUtc } from "@/components/format";
import { PageHeader, Section } from "@/components/page-header";
import { listApiKeys } from "@/lib/server/api-keys";
import { getDatabase } from "@/lib/server/db";
import { requireAdmin } from "../../../_lib/auth";
import { createApiKeyAction, revokeApiKeyAction } from "../actions";

export const metadata: Metadata = { title: "API keys · Deadbolt" };

export default async function ApiKeysPage() {
  await requireAdmin();
  const keys = await listApiKeys(getDatabase());
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader title="API keys" subtitle="For the CLI, the SDK and scripts: Authorization: Bearer <key>. Only a hash is stored; a key is shown once." />
      <Section title="Create a key">
        <ActionForm action={createApiKeyAction} testId="api-key-form" className="grid grid-cols-1 items-end gap-4 sm:grid-cols-[1fr_12rem_auto]" secretLabel="The new API key: copy it now, it is shown only once.">
          <Field name="name" label="Name" placeholder="billing servers" />
          <Field name="scope" label="Access">
            <select id="field-scope" name="scope" defaultValue="write" className={inputClass()}>
              <option value="write">read-write</option>
              <option value="read">read-only</option>
            </select>
          </Field>
          <SubmitButton>Create key</SubmitButton>
        </ActionForm>
      </Section>
      <Section title="Keys" testId="api-keys">
        {keys.length === 0 ? (
          <p className="text-sm text-slate-500">No keys yet.</p>
        ) : (
          <div className="-mx-4 overflow-x-auto px-4">
            <table className="w-full min-w-[36rem] text-sm">
              <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                <tr><th className="py-2 pr-3">Name</th><th className="py-2 pr-3">Key</th><th className="py-2 pr-3">Access</th><th className="py-2 pr-3">Created</th><th className="py-2 pr-3">Last used</th><th className="py-2"><span className="sr-only">Revoke</span></th></tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {keys.map((k) => (
                  <tr key={k.id} data-testid="api-key-row" data-name={k.name} data-revoked={k.revokedAt ? "true" : "false"} className={k.revokedAt ? "text-slate-400" : ""}>
                    <td className="py-2 pr-3 font-medium">{k.name}</td>
                    <td className="py-2 pr-3 font-mono text-xs">{k.prefix}…</td>
                    <td className="py-2 pr-3">{k.scope === "write" ? "read-write" : "read-only"}</td>
                    <td className="py-2 pr-3" title={formatUtc(k.createdAt.toISOString())}>{formatRelative(k.createdAt.toISOString(), now)}</td>
                    <td className="py-2 pr-3">{k.lastUsedAt ? formatRelative(k.lastUsedAt.toISOString(), now) : "never"}</td>
                    <td className="py-2 text-right">
                      {k.revokedAt ? (
                        <span className="text-xs">revoked {formatRelative(k.revokedAt.toISOString(), now)}</span>
                      ) : (
                        <ConfirmButton action={revokeApiKeyAction} hidden={{ id: k.id }} label="Revoke" confirmLabel="Revoke key" tone="danger" question="Revoke? Everything using it is refused at once." />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}
