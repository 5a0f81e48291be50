// API keys: created (shown once), authenticated on every API request, revoked.
import { AppError } from "../contracts/errors.ts";
import type { ApiKeyScope } from "../contracts/api-keys.ts";
import { nowOf, type Database } from "./db.ts";
import { newId, newSecret } from "./ids.ts";
import { sha256 } from "./secrets.ts";

export interface ApiPrincipal {
  keyId: string;
  name: string;
  scope: ApiKeyScope;
}

const KEY_PREFIX = "dbk_";

export async function createApiKey(db: Database, input: { name: string; scope: ApiKeyScope }, now = nowOf(db)) {
  const key = `${KEY_PREFIX}${newSecret(32)}`;
  const record = await db.prisma.apiKey.create({
    data: { id: newId(), name: input.name, scope: input.scope, prefix: key.slice(0, 10), keyHash: sha256(key), createdAt: now },
  });
  return { key, record };
}

/** Stores a key given from outside (DEADBOLT_BOOTSTRAP_API_KEY) as a read-write key, once. */
export async function ensureApiKey(db: Database, key: string, name: string, now = nowOf(db)): Promise<void> {
  if (key.length < 16) throw new Error(`${name}: an API key must be at least 16 characters`);
  const keyHash = sha256(key);
  await db.prisma.apiKey.upsert({
    where: { keyHash },
    create: { id: newId(), name, scope: "write", prefix: key.slice(0, 10), keyHash, createdAt: now },
    update: { revokedAt: null },
  });
}

export async function listApiKeys(db: Database) {
  return db.prisma.apiKey.findMany({ orderBy: { id: "desc" }, select: { id: true, name: true, prefix: true, scope: true, createdAt: true, lastUsedAt: true, revokedAt: true } });
}

export async function revokeApiKey(db: Database, id: string, now = nowOf(db)): Promise<void> {
  const { count } = await db.prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  if (count === 0) throw new AppError("not_found", `no active API key '${id}'`);
  authCache.clear();
}

// Jobs call the API at volume (leases, runs): a verified key is remembered briefly instead of being
// read on every request. A revoked key stops working within CACHE_MS on every instance.
const CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;
// On globalThis: Next.js's server bundle has its own copy of this module, and a key revoked from the
// dashboard must stop working for the API at once.
const g = globalThis as unknown as { __deadboltAuthCache?: Map<string, { principal: ApiPrincipal | null; until: number }>; __deadboltLastUsed?: Map<string, number> };
const authCache = (g.__deadboltAuthCache ??= new Map());
const lastUsedWritten = (g.__deadboltLastUsed ??= new Map());

export async function authenticateApiKey(db: Database, key: string, nowMs = Date.now()): Promise<ApiPrincipal | null> {
  const keyHash = sha256(key);
  const cached = authCache.get(keyHash);
  if (cached && cached.until > nowMs) return cached.principal;
  const row = await db.prisma.apiKey.findUnique({ where: { keyHash } });
  const principal = row && !row.revokedAt ? { keyId: row.id, name: row.name, scope: row.scope as ApiKeyScope } : null;
  if (authCache.size > 10_000) authCache.clear();
  authCache.set(keyHash, { principal, until: nowMs + CACHE_MS });
  if (principal && nowMs - (lastUsedWritten.get(principal.keyId) ?? 0) > LAST_USED_EVERY_MS) {
    lastUsedWritten.set(principal.keyId, nowMs);
    // Bookkeeping only: never fail or slow the request for it.
    db.prisma.apiKey.update({ where: { id: principal.keyId }, data: { lastUsedAt: new Date(nowMs) } }).catch(() => {});
  }
  return principal;
}
