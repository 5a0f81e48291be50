// Sign-in sessions of the dashboard. The cookie carries a random 256-bit token; the database keeps
// only its SHA-256 (Session.id), so a copy of the database does not hold live sessions.
import { randomBytes } from "node:crypto";
import { nowOf, type Database } from "../db.ts";
import { sha256 } from "../secrets.ts";

export const SESSION_COOKIE = "deadbolt_session";
export const SESSION_TTL_SECONDS = 14 * 86_400;

export interface SessionUser {
  id: string;
  email: string;
  role: "admin" | "member";
}

export async function createSession(db: Database, userId: string, now = nowOf(db)): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  await db.prisma.session.create({ data: { id: sha256(token), userId, expiresAt, createdAt: now } });
  // Housekeeping on the rare path (sign-in), never on every page view.
  await db.prisma.session.deleteMany({ where: { expiresAt: { lt: now } } });
  return { token, expiresAt };
}

/** The signed-in user of a cookie token, or null when it is unknown or expired. */
export async function findSessionUser(db: Database, token: string | undefined, now = nowOf(db)): Promise<SessionUser | null> {
  // Tokens are 43 base64url characters; anything else cannot be one (and spares the lookup).
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const session = await db.prisma.session.findUnique({
    where: { id: sha256(token) },
    select: { expiresAt: true, user: { select: { id: true, email: true, role: true } } },
  });
  if (!session || session.expiresAt.getTime() <= now.getTime()) return null;
  return { id: session.user.id, email: session.user.email, role: session.user.role === "admin" ? "admin" : "member" };
}

export async function deleteSession(db: Database, token: string | undefined): Promise<void> {
  if (!token) return;
  await db.prisma.session.deleteMany({ where: { id: sha256(token) } });
}
