/**
 * The answer-rule checker: tests run every tool's answer through it. Each rule is a separate check, so a
 * tool that breaks one fails with the rule's name. `identifiers` are the raw visitor, session and address
 * values of the test data, none of which may appear anywhere in an answer.
 */
import { IDENTIFIER_FIELDS, MAX_ITEMS, MAX_SERIES_POINTS, SERIES_FIELDS } from "./rules.ts";
import { hasContactDetails, isFew, SMALL_GROUP } from "./privacy.ts";
import type { z } from "zod";
import {
  type FieldsOf,
  identifierFieldsOf,
  itemFieldsOf,
  readBesideSchema,
  walkBesideSchema,
} from "./schema_fields.ts";
import { declarationOf, TIME_FIELD } from "./group_counts.ts";
import {
  countsOf,
  isCompared,
  ownSizeSmall,
  partSides,
  ratesOf,
  rateWithheld,
  smallSides,
} from "./small_groups.ts";
import { subtractionLeaks } from "./fold.ts";

export interface CheckOptions {
  identifiers?: string[];
  /** Review texts of apps the organization does not own (rule 3): no part of any may be quoted. */
  followedTexts?: string[];
  /** The tool's output schema: identifiers are kept out by construction, so the schema declares none and
   * the answer holds only declared fields; keys of a map (a split's `by`) are values and may be any text.
   * Under a filter, every field it declares as a count of a group (group_counts.ts) keeps rule 5. */
  output?: z.ZodType;
}

/** Fragments of followed reviews that would show they were quoted: each sentence or title of 12+ chars. */
function fragments(texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const f of t.split(/(?<=[.!?])\s+|\n+/)) {
      const s = f.trim().replace(/[.!?]+$/, "");
      if (s.length >= 12) out.add(s.slice(0, 60).toLowerCase());
    }
  }
  return [...out];
}

const TIME_FIELDS = TIME_FIELD;
const KEY_LIKE = /svc_(pk|sk|rk)_/;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/;

interface Walked {
  path: string;
  key: string | null;
  value: unknown;
  parent: Record<string, unknown> | null;
}

function* walk(
  value: unknown,
  path = "",
  key: string | null = null,
  parent: Record<string, unknown> | null = null,
): Generator<Walked> {
  yield { path, key, value, parent };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* walk(value[i], `${path}[${i}]`, null, null);
  } else if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) yield* walk(v, path ? `${path}.${k}` : k, k, obj);
  }
}

/** Returns the rule violations of one answer; an empty list means the answer keeps every rule. */
export function checkAnswer(answer: unknown, opts: CheckOptions = {}): string[] {
  const out: string[] = [];
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) return ["answer: not a JSON object"];
  const top = answer as Record<string, unknown>;
  const keys = Object.keys(top);

  // Rule 1: scope first, with every part of it.
  if (keys[0] !== "scope") out.push("scope: the answer must start with its scope");
  const scope = top.scope as Record<string, unknown> | undefined;
  for (const part of ["period", "timezone", "environment", "touchpoint", "traffic"]) {
    if (!scope || !(part in scope)) out.push(`scope: missing ${part}`);
  }
  if (!Array.isArray(top.notices)) out.push("notices: missing");
  const filtered = typeof scope?.filter === "string" && scope.filter !== "";
  const followed = fragments(opts.followedTexts ?? []);

  let maps = new Set<object>();
  if (opts.output) {
    for (const p of identifierFieldsOf(opts.output)) out.push(`schema: declares identifier field ${p}`);
    const reading = readBesideSchema(answer, opts.output);
    for (const p of reading.undeclared) out.push(`${p}: a field the output schema does not declare`);
    maps = reading.maps;
    if (filtered) {
      out.push(...declaredCountsOfSmallGroups(answer, opts.output));
      // a list that splits a shown whole: the whole less its groups must not tell 1 to 4 (lib/answers/fold.ts)
      out.push(...subtractionLeaks(top, opts.output));
      out.push(...apartLeaks(answer, opts.output));
    }
  }

  for (const { path, key, value, parent } of walk(answer)) {
    // Rule 2: lists of at most 25, with their total beside them.
    if (Array.isArray(value)) {
      const series = key !== null && SERIES_FIELDS.has(key);
      const max = series ? MAX_SERIES_POINTS : MAX_ITEMS;
      if (value.length > max) out.push(`${path}: ${value.length} items, more than ${max}`);
      const ofObjects = !series && value.some((v) => v && typeof v === "object");
      // The answer's own lists carry their total; small nested lists (a site's environments) need not.
      if (ofObjects && key && parent === top && typeof parent[`${key}_total`] !== "number") {
        out.push(`${path}: a list without ${key}_total beside it`);
      }
    }
    // Rule 4: no identifiers, no keys, no addresses; emails and phones masked.
    const isField = !(parent && maps.has(parent));
    if (key && isField && IDENTIFIER_FIELDS.has(key)) out.push(`${path}: identifier field "${key}"`);
    if (key && hasContactDetails(key)) {
      out.push(`${path}: unmasked email, phone number, IP address or key in a field name`);
    }
    if (typeof value === "string") {
      if (KEY_LIKE.test(value)) out.push(`${path}: carries an API key`);
      if (IPV4.test(value)) out.push(`${path}: carries an IP address`);
      if (hasContactDetails(value) && !/(^|\.)(from|to|from_date|to_date|store_id)$/.test(path)) {
        out.push(`${path}: unmasked email, phone number, IP address or key`);
      }
      // Rule 3: a followed app's review is never quoted, in whole or in part.
      const lower = followed.length ? value.toLowerCase() : "";
      for (const f of followed) {
        if (lower.includes(f)) out.push(`${path}: quotes a review of an app the organization does not own`);
      }
      for (const id of opts.identifiers ?? []) {
        if (id && value.includes(id)) out.push(`${path}: carries identifier "${id}"`);
      }
    }
    // Rule 3, by shape: an app marked not own carries no quotes, examples or review texts.
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      const app = o.app as Record<string, unknown> | undefined;
      if (app && app.own === false) {
        for (const [k, v] of Object.entries(o)) {
          if (k === "app") continue;
          for (const inner of walk(v)) {
            if (inner.key && ["examples", "quotes", "text", "title", "reply"].includes(inner.key)) {
              const empty = inner.value === null || (Array.isArray(inner.value) && inner.value.length === 0);
              if (!empty) out.push(`${path}.${k}: "${inner.key}" of an app the organization does not own`);
            }
          }
        }
      }
    }
    // Rule 5: small groups.
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const obj = value as Record<string, unknown>;
      const v = obj.visitors;
      if (filtered && isFew(v)) {
        out.push(`${path}: ${v} visitors under a filter must read "fewer than 5"`);
      }
      // The events or sessions of a small group would tell its size as well as its visitors do.
      if (filtered && v === "fewer than 5") {
        for (const k of ["events", "sessions", "pageviews"]) {
          const c = obj[k];
          if (typeof c === "number" && c > 0) {
            out.push(`${path}.${k}: a count of fewer than 5 visitors is exact`);
          }
        }
      }
      // A compared time ({value, previous}) beside compared visitors: each side needs 5 visitors.
      const vc = v && typeof v === "object" ? v as Record<string, unknown> : null;
      if (vc) {
        for (const [k, t] of Object.entries(obj)) {
          if (!TIME_FIELDS.test(k) || !t || typeof t !== "object") continue;
          for (const side of ["value", "previous"]) {
            const seen = vc[side];
            const time = (t as Record<string, unknown>)[side];
            const few = seen === "fewer than 5" || (typeof seen === "number" && seen < SMALL_GROUP);
            if (few && time !== null && time !== undefined) {
              out.push(`${path ? `${path}.` : ""}${k}.${side}: a time given for fewer than 5 visitors`);
            }
          }
        }
      }
      const n = typeof v === "number" ? v : v === "fewer than 5" ? 0 : null;
      if (n !== null && n < SMALL_GROUP) {
        if ("value" in obj && typeof obj.value === "string" && obj.value !== "") {
          out.push(`${path}: a value sent by fewer than 5 visitors is named`);
        }
        for (const [k, t] of Object.entries(obj)) {
          if (TIME_FIELDS.test(k) && t !== null && t !== undefined) {
            out.push(`${path}.${k}: a time given for fewer than 5 visitors`);
          }
        }
      }
    }
  }
  return out;
}

/**
 * Rule 5 on the fields the output schema declares as counts of a group, the declaration the pipeline's
 * guard reads: none reads 1 to 4, and none of an object whose group size is 1 to 4 is exact (but 0). A
 * declared rate of a group or count of 1 to 4 is null.
 */
function declaredCountsOfSmallGroups(answer: unknown, output: z.ZodType): string[] {
  const out: string[] = [];
  const exact = (x: unknown, groupSmall: boolean) =>
    typeof x === "number" && x > 0 && (x < SMALL_GROUP || groupSmall);
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    const counts = countsOf(obj, fields);
    const sides = smallSides(obj, counts);
    for (const [k, meta] of counts) {
      const v = obj[k], p = path ? `${path}.${k}` : k;
      const says = (where: string, x: unknown) =>
        out.push(`${where}: ${x} counts a group of fewer than 5 under a filter; it must read "fewer than 5"`);
      if (Array.isArray(v)) v.forEach((x, i) => exact(x, sides.has("plain")) && says(`${p}[${i}]`, x));
      else if (isCompared(v)) {
        for (const s of ["value", "previous"] as const) {
          if (exact(v[s], (!meta.size && sides.has(s)) || ownSizeSmall(obj, meta, s))) {
            says(`${p}.${s}`, v[s]);
          }
        }
      } else if (exact(v, (!meta.size && sides.has("plain")) || ownSizeSmall(obj, meta, "plain"))) says(p, v);
    }
    // a part shown beside its whole, 1 to 4 apart (and a rate worked out from a withheld part)
    for (const [k, at] of partSides(obj, counts)) {
      out.push(`${path ? `${path}.` : ""}${k}: ${at.join(", ")} 1 to 4 short of ${counts.get(k)!.partOf}`);
    }
    for (const [k, meta] of counts) {
      if (!meta.partOf || obj[k] !== null) continue;
      for (const [r, of] of ratesOf(obj, fields)) {
        const x = obj[r];
        if (of.includes(k) && typeof x === "number") {
          out.push(`${path ? `${path}.` : ""}${r}: a rate of withheld ${k}`);
        }
      }
    }
    for (const [k, of] of ratesOf(obj, fields)) {
      const v = obj[k], p = path ? `${path}.${k}` : k;
      const given = (where: string, x: unknown) =>
        out.push(`${where}: ${x} is a rate of a group of fewer than 5 under a filter; it must be null`);
      if (Array.isArray(v)) {
        v.forEach((x, i) => x !== null && rateWithheld(obj, sides, of, "plain", i) && given(`${p}[${i}]`, x));
      } else if (isCompared(v)) {
        for (const s of ["value", "previous"] as const) {
          if (v[s] !== null && rateWithheld(obj, sides, of, s)) given(`${p}.${s}`, v[s]);
        }
      } else if (v !== null && v !== undefined && rateWithheld(obj, sides, of, "plain")) given(p, v);
    }
  });
  return out;
}

/**
 * A list declared `groupApart`: two exact counts (of one kind of field) of different items, or of the lists
 * inside them, 1 to 4 apart would tell that many who are in one group and not the other.
 */
function apartLeaks(answer: unknown, output: z.ZodType): string[] {
  const out: string[] = [];
  walkBesideSchema(answer, output, (obj, fields, path) => {
    for (const [k, schema] of Object.entries(fields)) {
      const apart = declarationOf(schema)?.apart, items = obj[k], item = itemFieldsOf(schema);
      if (!apart || !Array.isArray(items) || !item) continue;
      const innerFields = apart.inner && item[apart.inner] ? itemFieldsOf(item[apart.inner]) : null;
      // each item's exact counts by field: its own and its inner list's
      const figures = (items as Record<string, unknown>[]).map((x) => {
        const m = new Map<string, number[]>();
        const add = (o: Record<string, unknown>, f: FieldsOf) => {
          for (const [field] of countsOf(o, f)) {
            const v = o[field];
            if (typeof v === "number" && v >= SMALL_GROUP) m.set(field, [...(m.get(field) ?? []), v]);
          }
        };
        add(x, item);
        const inner = apart.inner ? x[apart.inner] : undefined;
        if (innerFields && Array.isArray(inner)) {
          for (const y of inner) add(y as Record<string, unknown>, innerFields);
        }
        return m;
      });
      figures.forEach((a, i) =>
        figures.slice(i + 1).forEach((b, j) => {
          for (const [field, xs] of a) {
            const near = xs.find((x) => (b.get(field) ?? []).some((y) => isFew(Math.abs(x - y))));
            if (near !== undefined) {
              out.push(`${path ? `${path}.` : ""}${k}[${i}] and [${i + j + 1}]: ${field} 1 to 4 apart`);
            }
          }
        })
      );
    }
  });
  return out;
}
