"use server";
// Admin-only: API keys and users.
import { revalidatePath } from "next/cache";
import { ApiKeyCreate } from "@/lib/contracts/api-keys";
import { createApiKey, revokeApiKey } from "@/lib/server/api-keys";
import { getDatabase } from "@/lib/server/db";
import { createUser } from "@/lib/server/users";
import { requireAdmin } from "../../_lib/auth";
import { appErrorState, text, zodFields, type FormState } from "../../_lib/forms";

export async function createApiKeyAction(_state: FormState, form: FormData): Promise<FormState> {
  await requireAdmin();
  const parsed = ApiKeyCreate.safeParse({ name: text(form, "name"), scope: text(form, "scope") || "write" });
  if (!parsed.success) return { error: "Please fix the marked fields.", fields: zodFields(parsed.error) };
  const { key, record } = await createApiKey(getDatabase(), parsed.data);
  revalidatePath("/settings/api-keys");
  return { ok: true, message: `Created ${record.scope === "write" ? "read-write" : "read-only"} key “${record.name}”.`, secret: key };
}

export async function revokeApiKeyAction(form: FormData): Promise<void> {
  await requireAdmin();
  await revokeApiKey(getDatabase(), text(form, "id")).catch((error) => {
    // Already revoked (a double click, another admin): the page shows the state either way.
    if ((error as { code?: string }).code !== "not_found") throw error;
  });
  revalidatePath("/settings/api-keys");
}

export async function createUserAction(_state: FormState, form: FormData): Promise<FormState> {
  await requireAdmin();
  try {
    const user = await createUser(getDatabase(), { email: text(form, "email"), password: String(form.get("password") ?? ""), role: text(form, "role") === "admin" ? "admin" : "member" });
    revalidatePath("/settings/users");
    return { ok: true, message: `Added ${user.email}. Tell them their password through a channel you trust.` };
  } catch (error) {
    return appErrorState(error);
  }
}
