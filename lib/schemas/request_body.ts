/** Request-body helpers shared by the routes: bounded reads and schema parsing with named paths. */
import type { z } from "zod";
import { invalid, tooLarge } from "../errors.ts";
import { describeZodError } from "./zod_errors.ts";
import { decodeUtf8 } from "../text.ts";

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

/**
 * The body's bytes (of a request, or of a response the service fetched), refused past maxBytes as
 * readBodyLimited does: with 413, or with the error `refuse` makes.
 */
export async function readBodyBytes(
  msg: Request | Response,
  maxBytes: number,
  refuse: () => Error = () => tooLarge(`request body is larger than ${maxBytes} bytes`),
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = msg.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw refuse();
  if (!msg.body) return new Uint8Array();
  const reader = msg.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw refuse();
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

/** Parses JSON text; a body that is not JSON is a 422 naming the problem. */
export function parseJson(text: string): unknown {
  if (text.trim() === "") throw invalid("body: empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch {
    throw invalid("body: not valid JSON");
  }
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
): Promise<z.infer<S>> {
  return validate(schema, parseJson(await readBodyLimited(req, maxBytes)));
}
