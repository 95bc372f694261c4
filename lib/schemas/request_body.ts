/** Request-body helpers shared by the routes: bounded reads and schema parsing with named paths. */
import type { z } from "zod";
import { invalid, tooLarge, tooSlow, unsupportedEncoding } from "../errors.ts";
import { describeZodError } from "./zod_errors.ts";
import { decodeUtf8 } from "../text.ts";
import { BODY_LIMITS, type BodyLimits, guardJson, JsonShapeScanner, jsonTextProblem } from "./json_limits.ts";

export const MB = 1024 * 1024;
/** The read API's and MCP's bodies: a tool's few inputs, or one JSON-RPC message. */
export const READ_BODY_LIMIT = 64 * 1024;

/**
 * Reads a body as UTF-8 text, refusing more than maxBytes with 413: first by Content-Length, then by counting
 * bytes while streaming, so an oversized body is never buffered whole.
 */
export async function readBodyLimited(req: Request, maxBytes: number): Promise<string> {
  return decodeUtf8(await readBodyBytes(req, maxBytes)); // bytes that are not UTF-8: refused by the schema
}

/** Compressed bytes fed to the decompressor at once: at most ~1 MB decoded (deflate's ratio is ~1:1032). */
export const DECODE_SLICE = 1024;

function slices(size: number): TransformStream<Uint8Array, Uint8Array<ArrayBuffer>> {
  return new TransformStream({
    transform(chunk, c) {
      // a request body's chunks are views of plain ArrayBuffers
      for (let at = 0; at < chunk.byteLength; at += size) {
        c.enqueue(chunk.subarray(at, at + size) as Uint8Array<ArrayBuffer>);
      }
    },
  });
}

/** Content codings a request body may come in, decoded as it arrives; the byte limits count decoded bytes. */
const DECODED = new Map<string, CompressionFormat>([["gzip", "gzip"], ["x-gzip", "gzip"], [
  "deflate",
  "deflate",
]]);

/**
 * A request's body as its client meant it: decoded from a gzip or deflate Content-Encoding (a log shipper's
 * batch, a `history.ndjson.gz` import), refused with 415 naming any other coding. Data that is not what its
 * coding says is a 422 when read. A response's body is left as it is: fetch has decoded it already.
 */
export function decodedBody(msg: Request | Response): ReadableStream<Uint8Array> | null {
  const coding = (msg.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (!msg.body || !(msg instanceof Request) || coding === "" || coding === "identity") return msg.body;
  const format = DECODED.get(coding);
  if (!format) {
    throw unsupportedEncoding(
      `Content-Encoding ${coding.slice(0, 40)} is not supported; send the body uncompressed, gzip or deflate`,
    );
  }
  // In slices: the decompressor inflates each write whole (64 KB of a gzip bomb is 64 MB), and with the
  // streams' backpressure it inflates one slice ahead of the reader, which stops at the size limit.
  const inner = msg.body.pipeThrough(slices(DECODE_SLICE)).pipeThrough(new DecompressionStream(format))
    .getReader();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const { done, value } = await inner.read();
        if (done) c.close();
        else c.enqueue(value);
      } catch {
        c.error(invalid(`body: not valid ${format} data (Content-Encoding ${coding})`));
      }
    },
    cancel: (why) => inner.cancel(why),
  });
}

/** A request's Content-Encoding, lower case; null for none or identity. */
export function contentCoding(req: Request): string | null {
  const coding = (req.headers.get("content-encoding") ?? "").trim().toLowerCase();
  return coding === "" || coding === "identity" ? null : coding.slice(0, 40);
}

/** A coding decodedBody does not decode (the ingest endpoints answer it with their 422, not this 415). */
export const undecodable = (req: Request): string | null => {
  const coding = contentCoding(req);
  return coding !== null && !DECODED.has(coding) ? coding : null;
};

/** 415 for a body in any Content-Encoding, on an endpoint that reads its body as sent. */
export function refuseEncoded(req: Request, why: string): void {
  const coding = contentCoding(req);
  if (coding) throw unsupportedEncoding(`Content-Encoding ${coding} is not taken here: ${why}`);
}

/**
 * The body's bytes (of a request, or of a response the service fetched), refused past maxBytes as
 * readBodyLimited does: with 413, or with the error `refuse` makes. With `shape`, each chunk is scanned as it
 * arrives (JsonShapeScanner) and the body is refused (422) at the first chunk past a limit, so a megabyte
 * of "[" costs one chunk's scan, not a whole body held, decoded and scanned.
 */
export async function readBodyBytes(
  msg: Request | Response,
  maxBytes: number,
  refuse: () => Error = () => tooLarge(`request body is larger than ${maxBytes} bytes`),
  shape?: BodyLimits,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = msg.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw refuse();
  const body = decodedBody(msg);
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const scanner = shape ? new JsonShapeScanner(shape) : null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const deadline = Date.now() + bodyDeadline.ms;
  while (true) {
    const { done, value } = await readBefore(reader, deadline);
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw refuse();
    }
    const problem = scanner?.feed(value);
    if (problem) {
      await reader.cancel().catch(() => {});
      throw invalid(`body: ${problem}`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return all;
}

/**
 * A body still arriving this long after its first read is refused (408): a client sending a byte now and
 * then would otherwise hold its connection and buffer for as long as it likes. Wall time, not the clock of
 * deps: it bounds a connection, not a business rule. The connection guard sets it (BODY_TIMEOUT_S).
 */
export const bodyDeadline = { ms: 30_000 };

async function readBefore(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  deadline: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // refused first: cancelling ends the pending read as if the body were complete
      reject(tooSlow(`request body not complete within ${bodyDeadline.ms / 1000} s`));
      reader.cancel().catch(() => {});
    }, Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([reader.read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Only the nesting of an ingest body is bounded as a whole (far past the 32 levels a value may have, so the
 * schema still names the path of a value nested 33 to 10,000 deep); the rest is guarded value by value.
 */
const INGEST_SHAPE: BodyLimits = { depth: 10_000, keys: Infinity, strings: Infinity, stringChars: Infinity };

/** The body is guarded value by value by the endpoint's schema (ingest), not as a whole. */
export const PER_VALUE = "per-value" as const;

/**
 * Parses JSON text through the body guard (lib/schemas/json_limits.ts: depth, counts, string length and
 * well-formed Unicode before anything recursive sees the value); a body that is not JSON or passes a limit
 * is a 422 naming the problem. The ingest endpoints pass `PER_VALUE`: their schemas walk each event and hit
 * with the same guard (freeForm) so one bad value is named by its path, or counted as one invalid hit,
 * instead of refusing the whole batch; V8's JSON.parse itself is not recursive.
 */
export function parseJson(text: string, limits: BodyLimits | typeof PER_VALUE = BODY_LIMITS): unknown {
  return parseText(text, limits, false);
}

/** parseJson, told whether the text's shape was already scanned (its bytes, as they arrived). */
function parseText(text: string, limits: BodyLimits | typeof PER_VALUE, scanned: boolean): unknown {
  if (text.trim() === "") throw invalid("body: empty; send a JSON object");
  if (limits === PER_VALUE) {
    // V8's parse of very deep nesting is superlinear (1 MB of "[" takes ~0.4 s): refused by the linear scan
    const deep = scanned ? null : jsonTextProblem(text, INGEST_SHAPE);
    if (deep) throw invalid(`body: ${deep}`);
    try {
      return JSON.parse(text);
    } catch {
      throw invalid("body: not valid JSON");
    }
  }
  const guarded = guardJson(text, limits, "body", scanned);
  if (!guarded.ok) throw invalid(guarded.message);
  return guarded.value;
}

/**
 * A JSON body read and parsed through the body guard, its shape checked chunk by chunk as it arrives: a body
 * past the depth, count or string-length limits is refused at the first chunk that passes them, before the
 * rest is read, held or decoded.
 */
export async function readJson(
  req: Request,
  maxBytes = MB,
  limits: BodyLimits | typeof PER_VALUE = BODY_LIMITS,
): Promise<unknown> {
  const shape = limits === PER_VALUE ? INGEST_SHAPE : limits;
  const bytes = await readBodyBytes(req, maxBytes, undefined, shape);
  return parseText(decodeUtf8(bytes), limits, true);
}

/** What readGuardedJson found: a value, an empty body (only whitespace), or why the body is refused. */
export type GuardedBody =
  | { ok: true; empty: false; value: unknown; text: string }
  | { ok: true; empty: true; value: undefined; text: string }
  | { ok: false; notJson: boolean; message: string; text: string };

/**
 * The body through the one guard, its shape scanned chunk by chunk as it arrives (a body past a limit is a
 * 422 at the chunk that passes it), for endpoints that answer an empty body or one that is not JSON their
 * own way (the read API takes an empty body as no inputs; MCP leaves "not JSON" to its JSON-RPC answer).
 * `text` is the body as decoded (bytes that are not UTF-8 stand as lone surrogates, which the guard refuses).
 */
export async function readGuardedJson(
  req: Request,
  maxBytes: number,
  limits: BodyLimits = BODY_LIMITS,
): Promise<GuardedBody> {
  const text = decodeUtf8(await readBodyBytes(req, maxBytes, undefined, limits));
  if (text.trim() === "") return { ok: true, empty: true, value: undefined, text };
  const guarded = guardJson(text, limits, "body", true);
  return guarded.ok ? { ok: true, empty: false, value: guarded.value, text } : { ...guarded, text };
}

/** Validates with a zod schema; failure is a 422 whose message names the offending path. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw invalid(describeZodError(r.error));
  return r.data;
}

export async function readJsonBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  maxBytes = MB,
  limits: BodyLimits | typeof PER_VALUE = BODY_LIMITS,
): Promise<z.infer<S>> {
  return validate(schema, await readJson(req, maxBytes, limits));
}
