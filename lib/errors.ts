/** The spec's error codes, plus the read API's own (documented in openapi.json). */
export type ErrorCode =
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "VALIDATION_ERROR"
  | "RATE_LIMIT_EXCEEDED"
  | "ALLOWANCE_EXHAUSTED"
  | "OPERATION_FAILED";

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  timestamp: string;
}

/** An expected failure with its HTTP status; `onError` turns it into the Error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (msg: string) => new HttpError(401, "UNAUTHORIZED", msg);
export const forbidden = (msg: string) => new HttpError(403, "FORBIDDEN", msg);
export const notFound = (msg: string) => new HttpError(404, "NOT_FOUND", msg);
export const invalid = (msg: string) => new HttpError(422, "VALIDATION_ERROR", msg);
/** 413 keeps the ingest endpoints' code list (spec, Errors rule 1): the body is not acceptable as sent. */
export const tooLarge = (msg: string) => new HttpError(413, "VALIDATION_ERROR", msg);
export const rateLimited = (retryAfterS: number, msg = "rate limit exceeded") =>
  new HttpError(429, "RATE_LIMIT_EXCEEDED", msg, {
    "Retry-After": String(Math.max(1, Math.ceil(retryAfterS))),
  });

/** The message may quote what was sent (a key, a path): a lone surrogate in it is shown as U+FFFD. */
export function errorBody(code: ErrorCode, message: string, now: number): ErrorBody {
  return { error: message.toWellFormed(), code, timestamp: new Date(now).toISOString() };
}
