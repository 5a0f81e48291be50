import { AppError } from "../contracts/errors.ts";
import { nowOf, type Database } from "./db.ts";
import { newId } from "./ids.ts";
import { hashPassword } from "./secrets.ts";

export const MIN_PASSWORD_LENGTH = 10;

export async function createUser(db: Database, input: { email: string; password: string; role: "admin" | "member" }, now = nowOf(db)) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new AppError("validation_failed", "not an email address", "email");
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("validation_failed", `must be at least ${MIN_PASSWORD_LENGTH} characters`, "password");
  }
  try {
    return await db.prisma.user.create({ data: { id: newId(), email, passwordHash: await hashPassword(input.password), role: input.role, createdAt: now } });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new AppError("conflict", `a user with email ${email} already exists`, "email");
    throw error;
  }
}

/** The first admin from DEADBOLT_ADMIN_EMAIL/PASSWORD, only while no user exists. */
export async function ensureFirstAdmin(db: Database, email: string, password: string): Promise<boolean> {
  if ((await db.prisma.user.count()) > 0) return false;
  try {
    await createUser(db, { email, password, role: "admin" });
    return true;
  } catch (error) {
    // Another instance starting at the same moment created it.
    if (error instanceof AppError && error.code === "conflict") return false;
    throw error;
  }
}
