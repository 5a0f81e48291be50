// Shared by the server actions: form state and the mapping of errors to fields.
import type { z } from "zod";
import { AppError } from "@/lib/contracts/errors";

import type { FormState } from "@/components/form-state";

export type { FormState };

/** Zod issues by field path; list items ("tags.2") count for their list ("tags"). */
export function zodFields(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.filter((p) => typeof p === "string").join(".") || "_form";
    fields[key] ??= issue.message;
  }
  return fields;
}

/** A use case's AppError as form state; anything else is rethrown (Next.js shows the error page). */
export function appErrorState(error: unknown): FormState {
  if (error instanceof AppError) {
    return error.field ? { error: "Please fix the marked fields.", fields: { [error.field]: error.message } } : { error: error.message };
  }
  throw error;
}

export const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value.trim() : "";
};
