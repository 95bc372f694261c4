/**
 * Limits on what a free-form JSON value (an event's `properties`, `context`, `fingerprint`; a hit's `ip`)
 * may hold, and the rule that every string is well-formed Unicode. Checked while validating, by an
 * iterative walk, so a value nested thousands of levels deep is refused before anything recursive
 * (JSON.stringify in storedBytes, V8's serializer in KV) ever sees it: KV stored such a value but could not
 * read it back, and deeper still the stored-size count overflowed the stack.
 */
import { z } from "zod";
import { formatPath } from "./zod_errors.ts";

export interface JsonLimits {
  /** containers nested in one another, the value itself being level 1 */
  depth: number;
  /** object member names, at every level */
  keys: number;
  /** string values, at every level */
  strings: number;
  /**
   * characters of one member name: a name is a name, and a part gives the most frequent property names a
   * column each, listed in one directory value (KV holds 64 KiB: 64 names of 1,200 characters stopped a
   * day's compaction)
   */
  keyChars?: number;
}

export const FREE_FORM_LIMITS: JsonLimits = { depth: 32, keys: 1_000, strings: 1_000, keyChars: 200 };

export const NOT_WELL_FORMED = "must be well-formed Unicode (no lone surrogate, no bytes that are not UTF-8)";

export interface JsonProblem {
  path: (string | number)[];
  message: string;
}

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | number;
}

function pathOf(node: Node | null): (string | number)[] {
  const out: (string | number)[] = [];
  for (let n = node; n && n.parent; n = n.parent) out.push(n.key);
  return out.reverse();
}

/** The first thing in `value` past the limits or not well-formed, with its path from `value`; else null. */
export function jsonProblem(value: unknown, limits: JsonLimits = FREE_FORM_LIMITS): JsonProblem | null {
  let keys = 0, strings = 0;
  const stack: Node[] = [{ value, depth: 1, parent: null, key: "" }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === "string") {
      if (++strings > limits.strings) {
        return { path: pathOf(node), message: `holds more than ${limits.strings} strings` };
      }
      if (!v.isWellFormed()) return { path: pathOf(node), message: NOT_WELL_FORMED };
      continue;
    }
    if (typeof v === "number" && !Number.isFinite(v)) {
      // JSON.parse reads 1e400 as Infinity, which would be stored (and served) as null
      return { path: pathOf(node), message: "is a number beyond the range of a double (such as 1e400)" };
    }
    if (v === null || typeof v !== "object") continue;
    if (node.depth > limits.depth) {
      return { path: pathOf(node), message: `nested deeper than ${limits.depth} levels` };
    }
    const depth = node.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, parent: node, key: i });
      continue;
    }
    const names = Object.keys(v);
    keys += names.length;
    if (keys > limits.keys) return { path: pathOf(node), message: `holds more than ${limits.keys} keys` };
    for (let i = names.length - 1; i >= 0; i--) {
      const key = names[i];
      if (!key.isWellFormed()) return { path: [...pathOf(node), key], message: `key: ${NOT_WELL_FORMED}` };
      if (limits.keyChars !== undefined && key.length > limits.keyChars) {
        return { path: pathOf(node), message: `holds a key longer than ${limits.keyChars} characters` };
      }
      // JSON.parse makes it an own key, but copies and object spreads drop it or change the prototype
      if (key === "__proto__") return { path: pathOf(node), message: 'key "__proto__" is not allowed' };
      stack.push({ value: (v as Record<string, unknown>)[key], depth, parent: node, key });
    }
  }
  return null;
}

/**
 * A schema whose value must also keep within the free-form limits; an issue names the path inside it. The
 * walk sees the value as sent, before the schema copies it (a copy would drop a "__proto__" key unseen).
 */
export function freeForm<T extends z.ZodType>(schema: T, limits: JsonLimits = FREE_FORM_LIMITS) {
  return z.preprocess((value, ctx) => {
    const problem = jsonProblem(value, limits);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: problem.path, input: value });
    return value;
  }, schema);
}

/** A string schema that also refuses lone surrogates (and bytes that were not UTF-8: lib/text.ts decodeUtf8). */
export const wellFormed = <T extends z.ZodString>(schema: T): T =>
  schema.refine((s) => s.isWellFormed(), NOT_WELL_FORMED) as unknown as T;

/** What one request body may hold as a whole, checked before the endpoint's own schema sees it. */
export interface BodyLimits extends JsonLimits {
  /** the longest string as sent (escapes counted as written) */
  stringChars: number;
}

/**
 * Bodies of every endpoint: deep enough for an ingest batch (the envelope plus free-form values 32 deep),
 * counts no 1 MB body of real events reaches, strings far longer than any field the service keeps.
 */
export const BODY_LIMITS: BodyLimits = { depth: 64, keys: 100_000, strings: 200_000, stringChars: 65_536 };

/**
 * A linear pass over JSON bytes, chunk by chunk as they arrive: nesting depth, number of strings and the
 * longest string. Bytes that are not JSON pass (the parser names that). Brackets and quotes are ASCII, so
 * they never occur inside a multi-byte UTF-8 sequence and bytes can be scanned without decoding.
 */
export class JsonShapeScanner {
  #depth = 0;
  #strings = 0;
  #inString = false;
  #escaped = false;
  #length = 0;
  constructor(readonly limits: BodyLimits = BODY_LIMITS) {}

  /** The first limit these bytes pass, or null. */
  feed(bytes: Uint8Array): string | null {
    const { depth, keys, strings, stringChars } = this.limits;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (b === 0x5c) this.#escaped = true;
        else if (b === 0x22) {
          this.#inString = false;
          continue;
        }
        if (++this.#length > stringChars) return `holds a string longer than ${stringChars} bytes`;
      } else if (b === 0x22) {
        this.#inString = true;
        this.#length = 0;
        if (++this.#strings > keys + strings) return `holds more than ${keys + strings} strings and keys`;
      } else if (b === 0x5b || b === 0x7b) {
        if (++this.#depth > depth) return `nested deeper than ${depth} levels`;
      } else if (b === 0x5d || b === 0x7d) {
        this.#depth--;
      }
    }
    return null;
  }
}

/**
 * The scanner's pass over a whole text, without encoding it first (a 1 MB body of "[" is refused after its
 * first levels, not after making its megabyte of bytes): the first limit it passes, or null. String lengths
 * are counted in the UTF-8 bytes the text encodes to, as the byte scanner counts them.
 */
export function jsonTextProblem(text: string, limits: BodyLimits = BODY_LIMITS): string | null {
  const { depth: maxDepth, keys, strings: maxStrings, stringChars } = limits;
  let depth = 0, strings = 0, length = 0, inString = false, escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) {
        inString = false;
        continue;
      }
      if (c < 0x80) length += 1;
      else if (c < 0x800) length += 2;
      else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        length += 4; // a pair: one 4-byte sequence
        i++;
      } else length += 3; // a lone surrogate encodes as U+FFFD
      if (length > stringChars) return `holds a string longer than ${stringChars} bytes`;
    } else if (c === 0x22) {
      inString = true;
      length = 0;
      if (++strings > keys + maxStrings) return `holds more than ${keys + maxStrings} strings and keys`;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return null;
}

/**
 * A body stream that errors with `refuse(problem)` as soon as the bytes pass a limit: the guard for
 * endpoints that read their body themselves (the read API, MCP), so nothing deeper is ever buffered or parsed.
 */
export function guardedJsonStream(
  body: ReadableStream<Uint8Array>,
  refuse: (message: string) => Error,
  limits: BodyLimits = BODY_LIMITS,
): ReadableStream<Uint8Array> {
  const scanner = new JsonShapeScanner(limits);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const problem = scanner.feed(chunk);
        if (problem) controller.error(refuse(`body: ${problem}`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

export type GuardedJson = { ok: true; value: unknown } | { ok: false; notJson: boolean; message: string };

/**
 * The one body guard: the text's shape checked before parsing, then the value's counts and well-formed
 * Unicode by the iterative walk. `message` names the path from `root` ("body.events[0].properties.x: …").
 */
export function guardJson(
  text: string,
  limits: BodyLimits = BODY_LIMITS,
  root = "body",
  /** the bytes were already scanned as they arrived (JsonShapeScanner) */
  scanned = false,
): GuardedJson {
  const before = scanned ? null : jsonTextProblem(text, limits);
  if (before) return { ok: false, notJson: false, message: `${root}: ${before}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, notJson: true, message: `${root}: not valid JSON` };
  }
  const problem = jsonProblem(value, limits);
  if (problem) {
    return { ok: false, notJson: false, message: `${formatPath(problem.path, root)}: ${problem.message}` };
  }
  return { ok: true, value };
}
