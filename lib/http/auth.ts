// The one auth check of the API: every route declares its access; this hook enforces it.
import type { FastifyRequest } from "fastify";
import { AppError } from "../contracts/errors.ts";
import { authenticateApiKey } from "../server/api-keys.ts";
import type { Database } from "../server/db.ts";

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

export async function authorize(db: Database, request: FastifyRequest): Promise<void> {
  const access = request.routeOptions.config?.access ?? "write";
  request.principal = null;
  if (access === "public" || access === "ping") return;
  const token = bearerToken(request);
  if (!token) throw new AppError("unauthorized", "send an API key as 'Authorization: Bearer <key>'");
  const principal = await authenticateApiKey(db, token);
  if (!principal) throw new AppError("unauthorized", "unknown or revoked API key");
  if (access === "write" && principal.scope !== "write") throw new AppError("forbidden", "this API key is read-only");
  request.principal = principal;
}
