// Who is signed in, for pages and server actions. Every page and every action calls requireUser()
// (or requireAdmin()) itself: a layout's check is not a security boundary, and actions are public
// POST endpoints. CSRF: actions are POST-only and Next.js refuses them when Origin does not match
// Host; the cookie is SameSite=Lax and HTTP-only on top.
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDatabase } from "@/lib/server/db";
import { hasUsers } from "@/lib/server/dashboard/sign-in";
import { createSession, deleteSession, findSessionUser, SESSION_COOKIE, SESSION_TTL_SECONDS, type SessionUser } from "@/lib/server/dashboard/sessions";

export type { SessionUser };

/** The signed-in user of this request, looked up once per request. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return findSessionUser(getDatabase(), token);
});

export async function requireUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (user) return user;
  // A fresh install has nobody to sign in as yet.
  redirect((await hasUsers(getDatabase())) ? "/login" : "/setup");
}

export async function requireAdmin(): Promise<SessionUser> {
  const user = await requireUser();
  if (user.role !== "admin") redirect("/?denied=admin");
  return user;
}

/** Secure cookies when the browser talks HTTPS to us or to the proxy in front of us. */
async function isHttps(): Promise<boolean> {
  const h = await headers();
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return proto === "https" || (h.get("origin") ?? "").startsWith("https:");
}

/** Server actions only: starts a session and sets its cookie. */
export async function startSession(userId: string): Promise<void> {
  const { token } = await createSession(getDatabase(), userId);
  (await cookies()).set(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", secure: await isHttps(), path: "/", maxAge: SESSION_TTL_SECONDS });
}

/** Server actions only: ends the session of this request. */
export async function endSession(): Promise<void> {
  const store = await cookies();
  await deleteSession(getDatabase(), store.get(SESSION_COOKIE)?.value);
  store.delete(SESSION_COOKIE);
}

/** A path to return to after signing in: only our own, never another origin (`//evil.example`). */
export function safeNext(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : "/";
}
