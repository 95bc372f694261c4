/** JSON over deps.fetch for the store sources: a timeout, and failures as SourceError with a short reason. */
export const SOURCE_TIMEOUT_MS = 20_000;

export class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}

export async function fetchJson(
  fetcher: typeof fetch,
  url: string,
  init: RequestInit = {},
  what = "store",
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetcher(url, { ...init, signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS) });
  } catch (e) {
    throw new SourceError(`${what}: no answer (${e instanceof Error ? e.message : String(e)})`.slice(0, 300));
  }
  const body = await res.text();
  if (!res.ok) {
    const retry = Number(res.headers.get("retry-after"));
    throw new SourceError(
      `${what}: HTTP ${res.status}${errorDetail(body)}`.slice(0, 300),
      res.status,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  try {
    return JSON.parse(body);
  } catch {
    throw new SourceError(`${what}: the answer is not JSON`, res.status);
  }
}

/** The store's own error message, when its body has one (JSON:API errors, Google's error object). */
function errorDetail(body: string): string {
  try {
    const j = JSON.parse(body);
    const msg = j?.errors?.[0]?.detail ?? j?.errors?.[0]?.title ?? j?.error?.message ??
      j?.error_description ??
      (typeof j?.error === "string" ? j.error : null);
    return msg ? `: ${String(msg)}` : "";
  } catch {
    return "";
  }
}

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
