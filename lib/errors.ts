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

/**
 * The service's one vocabulary of expected failures, each mapped to its HTTP status and code here and nowhere
 * else: a file says what went wrong (`conflict(…)`, `exhausted(…)`), never which status that is.
 */
export const FAILURES = {
  unauthorized: { status: 401, code: "UNAUTHORIZED" },
  /** This month's allowance of the call's kind is used (the read API's 402). */
  exhausted: { status: 402, code: "ALLOWANCE_EXHAUSTED" },
  forbidden: { status: 403, code: "FORBIDDEN" },
  notFound: { status: 404, code: "NOT_FOUND" },
  /** What was to be changed changed meanwhile, or a name is taken: reload and try again. */
  conflict: { status: 409, code: "OPERATION_FAILED" },
  /** The request's body did not arrive in time (the connection guard's deadline). */
  tooSlow: { status: 408, code: "VALIDATION_ERROR" },
  /** 413 keeps the ingest endpoints' code list (spec, Errors rule 1): the body is not acceptable as sent. */
  tooLarge: { status: 413, code: "VALIDATION_ERROR" },
  /** A body in a Content-Encoding the service does not decode (RFC 9110 §15.5.16). */
  unsupportedEncoding: { status: 415, code: "VALIDATION_ERROR" },
  invalid: { status: 422, code: "VALIDATION_ERROR" },
  rateLimited: { status: 429, code: "RATE_LIMIT_EXCEEDED" },
} as const satisfies Record<string, { status: number; code: ErrorCode }>;

export type Failure = keyof typeof FAILURES;

export function failure(kind: Failure, msg: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(FAILURES[kind].status, FAILURES[kind].code, msg, headers);
}

/** Whether an error is this expected failure (a route that answers one kind its own way asks this). */
export const isFailure = (err: unknown, kind: Failure): err is HttpError =>
  err instanceof HttpError && err.status === FAILURES[kind].status;

export const unauthorized = (msg: string) => failure("unauthorized", msg);
export const exhausted = (msg: string) => failure("exhausted", msg);
export const forbidden = (msg: string) => failure("forbidden", msg);
export const notFound = (msg: string) => failure("notFound", msg);
export const conflict = (msg: string) => failure("conflict", msg);
export const invalid = (msg: string) => failure("invalid", msg);
export const tooLarge = (msg: string) => failure("tooLarge", msg);
export const tooSlow = (msg: string) => failure("tooSlow", msg);
export const unsupportedEncoding = (msg: string) => failure("unsupportedEncoding", msg);
export const rateLimited = (retryAfterS: number, msg = "rate limit exceeded") =>
  failure("rateLimited", msg, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterS))) });

/** The message may quote what was sent (a key, a path): a lone surrogate in it is shown as U+FFFD. */
export function errorBody(code: ErrorCode, message: string, now: number): ErrorBody {
  return { error: message.toWellFormed(), code, timestamp: new Date(now).toISOString() };
}
