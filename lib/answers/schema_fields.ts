/**
 * An answer read beside its tool's output schema, for the checker: which fields a schema declares, which
 * fields of an answer it does not declare, and which objects of an answer are maps keyed by data (a split's
 * `by`), whose keys are values, not fields.
 */
import type { z } from "zod";
import { IDENTIFIER_FIELDS } from "./rules.ts";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under wrappers that do not change a value's shape (optional, nullable, default, pipe, lazy). */
function unwrap(s: z.ZodType): z.ZodType {
  for (let i = 0; i < 20; i++) {
    const d = defOf(s);
    if (
      d.innerType && ["optional", "nullable", "default", "readonly", "nonoptional", "catch"].includes(d.type)
    ) {
      s = d.innerType;
    } else if (d.type === "pipe" && d.in) s = d.in;
    else if (d.type === "lazy" && d.getter) s = d.getter();
    else return s;
  }
  return s;
}

/** Paths of object fields a schema declares under an identifier's name (the rule: there are none). */
export function identifierFieldsOf(schema: z.ZodType, path = "", seen = new Set<z.ZodType>()): string[] {
  const s = unwrap(schema);
  if (seen.has(s)) return [];
  seen.add(s);
  const d = defOf(s);
  const out: string[] = [];
  if (d.type === "object" && d.shape) {
    for (const [k, v] of Object.entries(d.shape)) {
      const p = path ? `${path}.${k}` : k;
      if (IDENTIFIER_FIELDS.has(k)) out.push(p);
      out.push(...identifierFieldsOf(v, p, seen));
    }
  } else if (d.type === "array" && d.element) out.push(...identifierFieldsOf(d.element, `${path}[]`, seen));
  else if (d.type === "record" && d.valueType) {
    out.push(...identifierFieldsOf(d.valueType, `${path}{}`, seen));
  } else if (d.type === "union" && d.options) {
    for (const o of d.options) out.push(...identifierFieldsOf(o, path, seen));
  }
  return out;
}

export interface SchemaReading {
  /** Fields of the answer its schema does not declare, by path. */
  undeclared: string[];
  /** Objects of the answer keyed by data (records): their keys are values, not fields. */
  maps: Set<object>;
}

/** Reads an answer beside its schema. A union takes the option that declares the most of the value. */
export function readBesideSchema(value: unknown, schema: z.ZodType): SchemaReading {
  const reading: SchemaReading = { undeclared: [], maps: new Set() };
  visit(value, schema, "", reading);
  return reading;
}

function visit(value: unknown, schema: z.ZodType, path: string, r: SchemaReading): void {
  if (value === null || typeof value !== "object") return;
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === "union" && d.options) {
    let best: SchemaReading | null = null;
    for (const o of d.options) {
      const trial: SchemaReading = { undeclared: [], maps: new Set() };
      visit(value, o, path, trial);
      if (!best || trial.undeclared.length < best.undeclared.length) best = trial;
    }
    if (best) {
      r.undeclared.push(...best.undeclared);
      for (const m of best.maps) r.maps.add(m);
    }
    return;
  }
  if (Array.isArray(value)) {
    if (d.type === "array" && d.element) value.forEach((v, i) => visit(v, d.element!, `${path}[${i}]`, r));
    return;
  }
  const obj = value as Record<string, unknown>;
  if (d.type === "record" && d.valueType) {
    r.maps.add(obj);
    for (const [k, v] of Object.entries(obj)) visit(v, d.valueType, `${path}.${k}`, r);
    return;
  }
  if (d.type === "object" && d.shape) {
    for (const [k, v] of Object.entries(obj)) {
      const p = path ? `${path}.${k}` : k;
      const field = d.shape[k];
      // A list cut to 25 gets its `_total` beside it from the rules, declared or not.
      if (!field && !(k.endsWith("_total") && Array.isArray(obj[k.slice(0, -6)]))) r.undeclared.push(p);
      else if (field) visit(v, field, p, r);
    }
  }
}

/** The fields an array's items declare when they are objects (under wrappers), else null. */
export function itemFieldsOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  const d = defOf(unwrap(schema));
  if (d.type !== "array" || !d.element) return null;
  const e = defOf(unwrap(d.element));
  return e.type === "object" && e.shape ? e.shape : null;
}

/** The fields an object's schema declares, by name. */
export type FieldsOf = Record<string, z.ZodType>;

/** The option of a union that declares the most of a value (the one `readBesideSchema` reads it with). */
function optionFor(value: unknown, options: z.ZodType[]): z.ZodType {
  let best = options[0], fewest = Infinity;
  for (const o of options) {
    const trial: SchemaReading = { undeclared: [], maps: new Set() };
    visit(value, o, "", trial);
    if (trial.undeclared.length < fewest) best = o, fewest = trial.undeclared.length;
  }
  return best;
}

/**
 * Calls `fn` with every object of an answer whose schema is an object, and the fields that schema declares,
 * parents before their children; `path` is the dotted path of the object ("" for the answer itself).
 */
export function walkBesideSchema(
  value: unknown,
  schema: z.ZodType,
  fn: (obj: Record<string, unknown>, fields: FieldsOf, path: string) => void,
  path = "",
): void {
  if (value === null || typeof value !== "object") return;
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === "union" && d.options) return walkBesideSchema(value, optionFor(value, d.options), fn, path);
  if (Array.isArray(value)) {
    if (d.type === "array" && d.element) {
      value.forEach((v, i) => walkBesideSchema(v, d.element!, fn, `${path}[${i}]`));
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  if (d.type === "record" && d.valueType) {
    for (const [k, v] of Object.entries(obj)) walkBesideSchema(v, d.valueType, fn, `${path}.${k}`);
    return;
  }
  if (d.type === "object" && d.shape) {
    fn(obj, d.shape, path);
    for (const [k, v] of Object.entries(obj)) {
      if (d.shape[k]) walkBesideSchema(v, d.shape[k], fn, path ? `${path}.${k}` : k);
    }
  }
}
