"use server";
import { revalidatePath } from "next/cache";
import { ChannelCreate } from "@/lib/contracts/alerts";
import { createChannel, deleteChannel, sendTestNotification } from "@/lib/server/channels";
import { readConfig } from "@/lib/server/config";
import { getDatabase } from "@/lib/server/db";
import { requireUser } from "../../_lib/auth";
import { appErrorState, text, zodFields, type FormState } from "../../_lib/forms";

export async function createChannelAction(_state: FormState, form: FormData): Promise<FormState> {
  await requireUser();
  const kind = text(form, "kind");
  const remind = text(form, "remindEveryMinutes");
  if (remind && !/^\d+$/.test(remind)) return { error: "Please fix the marked fields.", fields: { remindEveryMinutes: "must be a whole number of minutes" } };
  const common = { name: text(form, "name"), ...(remind ? { remindEveryMinutes: Number(remind) } : {}) };
  const input = kind === "email"
    ? { ...common, kind, address: text(form, "address") }
    : { ...common, kind, url: text(form, "url"), format: text(form, "format") || "json", ...(text(form, "secret") ? { secret: text(form, "secret") } : {}) };
  const parsed = ChannelCreate.safeParse(input);
  if (!parsed.success) return { error: "Please fix the marked fields.", fields: zodFields(parsed.error) };
  try {
    const created = await createChannel(getDatabase(), parsed.data);
    revalidatePath("/channels");
    return { ok: true, message: `Added ${created.name}.`, ...(created.secret ? { secret: created.secret } : {}) };
  } catch (error) {
    return appErrorState(error);
  }
}

export async function testChannelAction(_state: FormState, form: FormData): Promise<FormState> {
  await requireUser();
  const config = readConfig();
  try {
    const result = await sendTestNotification(getDatabase(), text(form, "id"), { baseUrl: config.baseUrl, smtpUrl: config.smtpUrl, alertFrom: config.alertFrom, timeoutMs: 10_000 });
    revalidatePath("/channels");
    return result.ok
      ? { message: `Delivered${result.responseStatus ? `: HTTP ${result.responseStatus}` : ""} in ${result.durationMs} ms.` }
      : { error: `Not delivered: ${result.error ?? `HTTP ${result.responseStatus}`}.` };
  } catch (error) {
    return appErrorState(error);
  }
}

export async function deleteChannelAction(form: FormData): Promise<void> {
  await requireUser();
  await deleteChannel(getDatabase(), text(form, "id"));
  revalidatePath("/channels");
}
