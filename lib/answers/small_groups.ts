/**
 * Rule 5 over a whole answer asked under a saved cohort: wherever an object carries `visitors` of 1 to 4,
 * that count reads "fewer than 5", the events, sessions and pageviews beside it too (they would tell the
 * group's size), its times are withheld and a value it names is not named. Compared figures
 * (`{value, previous, change}`) are guarded side by side. `guardedOutputSchema` widens a tool's published
 * output schema to match: exactly the fields this pass may change.
 */
import { FEWER_THAN_5, SMALL_GROUP } from "./privacy.ts";

/** Counts that tell a group's size as well as its visitors do. */
const SIZE_FIELDS = new Set([
  "visitors",
  "viewers",
  "engaged_visitors",
  "events",
  "sessions",
  "pageviews",
  "count",
  "entries",
  "exits",
  "conversions",
  "returned",
]);
const TIME_FIELD = /(_time_s|duration_s|_median_s|_average_s|_avg_s|median_s_from_previous)$/;

const small = (v: unknown) => typeof v === "number" && v > 0 && v < SMALL_GROUP;
const isCompared = (v: unknown): v is { value: unknown; previous: unknown; change?: unknown } =>
  !!v && typeof v === "object" && !Array.isArray(v) && "value" in v && "previous" in v;

function guardObject(o: Record<string, unknown>): boolean {
  let changed = false;
  const v = o.visitors;
  if (small(v)) {
    changed = true;
    for (const k of Object.keys(o)) {
      if (SIZE_FIELDS.has(k) && typeof o[k] === "number" && (o[k] as number) > 0) o[k] = FEWER_THAN_5;
      else if (TIME_FIELD.test(k) && o[k] !== null && typeof o[k] !== "object") o[k] = null;
      else if (k === "value" && typeof o[k] === "string") o[k] = null;
    }
  } else if (isCompared(v)) {
    const sides = (["value", "previous"] as const).filter((s) => small(v[s]));
    if (sides.length) {
      changed = true;
      for (const k of Object.keys(o)) {
        const f = o[k];
        if (!isCompared(f) || !(SIZE_FIELDS.has(k) || TIME_FIELD.test(k))) continue;
        for (const s of sides) {
          if (f[s] !== null) f[s] = TIME_FIELD.test(k) ? null : (f[s] === 0 ? 0 : FEWER_THAN_5);
        }
        if ("change" in f) f.change = null;
      }
    }
  }
  return changed;
}

/** Guards every object of an answer in place; true when something was changed. */
export function guardSmallGroups(value: unknown): boolean {
  let changed = false;
  if (Array.isArray(value)) {
    for (const x of value) changed = guardSmallGroups(x) || changed;
  } else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) if (k !== "scope") changed = guardSmallGroups(x) || changed;
    changed = guardObject(o) || changed;
  }
  return changed;
}

type Json = Record<string, unknown>;
const FEWER: Json = { type: "string", const: FEWER_THAN_5 };

function widen(s: Json, extra: Json[]): Json {
  return { anyOf: [s, ...extra] };
}

/** A JSON Schema with the fields `guardSmallGroups` may change widened: counts may read "fewer than 5", times and values may be null. */
export function guardedOutputSchema(schema: Json): Json {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== "object") return s;
    const out: Json = {};
    for (const [k, v] of Object.entries(s as Json)) out[k] = k === "properties" ? props(v as Json) : walk(v);
    return out;
  };
  const props = (p: Json): Json => {
    const out: Json = {};
    for (const [k, v] of Object.entries(p)) {
      const inner = walk(v) as Json;
      if (SIZE_FIELDS.has(k) || TIME_FIELD.test(k) || k === "value") {
        const compared = inner.properties && (inner.properties as Json).previous;
        if (compared) {
          const ip = inner.properties as Json;
          out[k] = {
            ...inner,
            properties: {
              ...ip,
              value: widen(ip.value as Json, [FEWER, { type: "null" }]),
              previous: widen(ip.previous as Json, [FEWER, { type: "null" }]),
              ...(ip.change ? { change: widen(ip.change as Json, [{ type: "null" }]) } : {}),
            },
          };
        } else out[k] = widen(inner, [FEWER, { type: "null" }]);
      } else out[k] = inner;
    }
    return out;
  };
  return walk(schema) as Json;
}
