// One code→status table and one mapper from anything thrown to `{"error": {"code", "message"}}`.
import { ZodError } from "zod";
import { AppError, type ErrorBody, type ErrorCode } from "../contracts/errors.ts";

export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid_json: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  lease_held: 409,
  lease_lost: 409,
  slot_done: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  unavailable: 503,
};

export interface MappedError {
  status: number;
  body: ErrorBody & Record<string, unknown>;
  /** True for errors we did not expect: log them. */
  unexpected: boolean;
}

function fromZod(error: ZodError): AppError {
  const issue = error.issues[0];
  const field = issue.path.map(String).join(".");
  let message = issue.message;
  if (issue.code === "unrecognized_keys") message = `unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) message = "is required";
  return new AppError("validation_failed", field ? `${field}: ${message}` : message, field || undefined);
}

// Fastify's own errors for bad requests, by code.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "bad_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_json",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_json",
};

export function mapError(error: unknown): MappedError {
  let app: AppError | null = null;
  if (error instanceof AppError) app = error;
  else if (error instanceof ZodError) app = fromZod(error);
  else if (error && typeof error === "object" && "code" in error && typeof error.code === "string" && FASTIFY_CODES[error.code]) {
    const code = FASTIFY_CODES[error.code];
    const messages: Partial<Record<ErrorCode, string>> = {
      payload_too_large: "request body is too large",
      unsupported_media_type: "send JSON with Content-Type: application/json",
      invalid_json: "request body is not valid JSON",
    };
    app = new AppError(code, messages[code] ?? "bad request");
  } else if (error instanceof SyntaxError && "statusCode" in error && error.statusCode === 400) {
    app = new AppError("invalid_json", "request body is not valid JSON");
  }
  if (!app) {
    // Reveal nothing about an error we did not expect.
    return { status: 500, body: { error: { code: "internal_error", message: "internal error" } }, unexpected: true };
  }
  // A message about a field names it, wherever the error was raised.
  const message = app.field && !app.message.startsWith(`${app.field}:`) ? `${app.field}: ${app.message}` : app.message;
  const body: MappedError["body"] = { ...app.extra, error: { code: app.code, message, ...(app.field ? { field: app.field } : {}) } };
  return { status: STATUS_OF[app.code], body, unexpected: false };
}
