// The one error type. Use cases throw it; lib/http/errors.ts maps its code to a status and to the
// `{"error": {"code", "message"}}` body of PRODUCT.md.
export const ERROR_CODES = [
  "bad_request",
  "invalid_json",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "lease_held",
  "lease_lost",
  "slot_done",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "unavailable",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The input field at fault, for validation errors ("schedule.cron"). */
    readonly field?: string,
    /** Extra top-level body fields a contract promises beside `error` (e.g. a 409's holder). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}
