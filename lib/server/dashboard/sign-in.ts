// First-run setup and password sign-in. Passwords are checked with scrypt (secrets.ts).
import { AppError } from "../../contracts/errors.ts";
import type { Database } from "../db.ts";
import { hashPassword, verifyPassword } from "../secrets.ts";
import { createUser } from "../users.ts";
import type { SessionUser } from "./sessions.ts";

export async function hasUsers(db: Database): Promise<boolean> {
  return (await db.prisma.user.findFirst({ select: { id: true } })) !== null;
}

/**
 * Creates the first admin, only while no user exists. Two people submitting the setup form at
 * once both pass the emptiness check; ids are time-ordered, so each then looks for the oldest user
 * and the later one removes itself: exactly one admin remains.
 */
export async function setUpFirstAdmin(db: Database, email: string, password: string): Promise<SessionUser> {
  if (await hasUsers(db)) throw new AppError("conflict", "Deadbolt is already set up: sign in instead");
  const user = await createUser(db, { email, password, role: "admin" });
  const first = await db.prisma.user.findFirst({ orderBy: { id: "asc" }, select: { id: true } });
  if (first?.id !== user.id) {
    await db.prisma.user.delete({ where: { id: user.id } });
    throw new AppError("conflict", "Deadbolt is already set up: sign in instead");
  }
  return { id: user.id, email: user.email, role: "admin" };
}

// Compared against when the email is unknown, so both answers take one scrypt's time.
let dummyHash: Promise<string> | null = null;

export async function checkPassword(db: Database, email: string, password: string): Promise<SessionUser | null> {
  const user = await db.prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) {
    await verifyPassword(password, await (dummyHash ??= hashPassword("not the password of anyone")));
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, email: user.email, role: user.role === "admin" ? "admin" : "member" };
}

// A small brake on password guessing, per email, in this process: 10 failures in 15 minutes lock
// that email out until the window passes. Several instances each keep their own count.
const WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 10;
const failures = new Map<string, { count: number; since: number }>();

export function signInLocked(email: string, nowMs = Date.now()): boolean {
  const entry = failures.get(email.trim().toLowerCase());
  return entry !== undefined && nowMs - entry.since < WINDOW_MS && entry.count >= MAX_FAILURES;
}

export function noteSignInFailure(email: string, nowMs = Date.now()): void {
  const key = email.trim().toLowerCase();
  const entry = failures.get(key);
  if (!entry || nowMs - entry.since >= WINDOW_MS) failures.set(key, { count: 1, since: nowMs });
  else entry.count++;
  if (failures.size > 10_000) failures.clear();
}

export function noteSignInSuccess(email: string): void {
  failures.delete(email.trim().toLowerCase());
}

export async function listUsers(db: Database) {
  return db.prisma.user.findMany({ orderBy: { id: "asc" }, select: { id: true, email: true, role: true, createdAt: true } });
}
