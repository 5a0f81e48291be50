"use server";
// Sign-in, first-run setup and sign-out. Next.js refuses these POSTs when Origin and Host differ.
import { redirect } from "next/navigation";
import { MIN_PASSWORD_LENGTH } from "@/lib/server/users";
import { getDatabase } from "@/lib/server/db";
import { checkPassword, hasUsers, noteSignInFailure, noteSignInSuccess, setUpFirstAdmin, signInLocked } from "@/lib/server/dashboard/sign-in";
import { endSession, safeNext, startSession } from "../_lib/auth";
import { appErrorState, text, type FormState } from "../_lib/forms";

export async function signInAction(_state: FormState, form: FormData): Promise<FormState> {
  const email = text(form, "email");
  const password = String(form.get("password") ?? "");
  if (!email || !password) {
    return { error: "Enter your email and password.", fields: { ...(!email && { email: "required" }), ...(!password && { password: "required" }) } };
  }
  if (signInLocked(email)) return { error: "Too many failed sign-ins for this email. Wait 15 minutes, then try again." };
  const user = await checkPassword(getDatabase(), email, password);
  if (!user) {
    noteSignInFailure(email);
    return { error: "Wrong email or password." };
  }
  noteSignInSuccess(email);
  await startSession(user.id);
  redirect(safeNext(form.get("next")));
}

export async function setupAction(_state: FormState, form: FormData): Promise<FormState> {
  const db = getDatabase();
  if (await hasUsers(db)) redirect("/login");
  const email = text(form, "email");
  const password = String(form.get("password") ?? "");
  if (password.length < MIN_PASSWORD_LENGTH) return { error: "Please fix the marked fields.", fields: { password: `must be at least ${MIN_PASSWORD_LENGTH} characters` } };
  if (password !== String(form.get("confirm") ?? "")) return { error: "Please fix the marked fields.", fields: { confirm: "does not match the password" } };
  let userId: string;
  try {
    userId = (await setUpFirstAdmin(db, email, password)).id;
  } catch (error) {
    return appErrorState(error);
  }
  await startSession(userId);
  redirect("/");
}

export async function signOutAction(): Promise<void> {
  await endSession();
  redirect("/login");
}
