/**
 * JSON Schemas in the forms every MCP client and OpenAPI tool accepts. zod writes a nullable field as
 * `type: ["string", "null"]`: valid JSON Schema 2020-12, but several clients (and the MCP Inspector) warn on a
 * type array. The same meaning written with `anyOf` of single-type branches is valid 2020-12 too, and
 * portable. Applied where schemas are published (MCP tools/list, /v1/read, /openapi.json); validation keeps
 * using the zod schemas themselves.
 *
 * The `$schema` zod writes (the 2020-12 URI) is left out too: MCP reads a schema without `$schema` as
 * 2020-12, and a checker built on a draft-07 validator (the MCP Inspector's first version compiles output
 * schemas with ajv's default class) refuses a 2020-12 `$schema` it has no meta-schema for, where the same
 * schema without it compiles. Our schemas use no keyword whose meaning differs between the two drafts.
 */
type Schema = Record<string, unknown>;

/** The dialect MCP assumes when a schema names none. */
const DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** Keywords that only constrain one JSON type: they move into that type's branch. */
const BY_TYPE: Record<string, string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: [
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
  ],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
  ],
};
BY_TYPE.integer = BY_TYPE.number;

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const fits = (t: string, v: unknown) => jsonType(v) === t || (t === "number" && jsonType(v) === "integer");

/** One schema node with a type array, as anyOf of one branch per type; annotations stay on the node. */
function splitTypes(node: Schema, types: string[]): Schema {
  const moved = new Set(Object.values(BY_TYPE).flat().concat(["type", "enum", "const"]));
  const outer: Schema = {};
  for (const [k, v] of Object.entries(node)) if (!moved.has(k)) outer[k] = v;
  const branches = types.map((t) => {
    const b: Schema = { type: t };
    for (const k of BY_TYPE[t] ?? []) if (k in node) b[k] = node[k];
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter((v) => fits(t, v));
      if (t !== "null") b.enum = values;
    }
    if ("const" in node && fits(t, node.const) && t !== "null") b.const = node.const;
    return b;
  }).filter((b) => !Array.isArray(b.enum) || b.enum.length > 0);
  if (Array.isArray(outer.anyOf)) {
    const existing = outer.anyOf;
    delete outer.anyOf;
    outer.allOf = [...(Array.isArray(outer.allOf) ? outer.allOf : []), { anyOf: existing }, {
      anyOf: branches,
    }];
  } else outer.anyOf = branches;
  return outer;
}

/** A copy of a schema with every type array written as anyOf; everything else unchanged. */
export function portableSchema<T>(schema: T): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    const node = v as Schema;
    const out: Schema = {};
    for (const [k, x] of Object.entries(node)) {
      if (k === "$schema" && x === DIALECT_2020_12) continue;
      // enum, const, default and examples hold data, not schemas
      out[k] = k === "enum" || k === "const" || k === "default" || k === "examples" ? x : walk(x);
    }
    if (Array.isArray(out.type)) {
      const types = out.type as string[];
      if (types.length === 1) out.type = types[0];
      else return splitTypes(out, types);
    }
    return out;
  };
  return walk(schema) as T;
}

/** Where a published schema still uses a form clients warn about; empty when portable. */
export function portabilityProblems(schema: unknown, path = "#"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((x, i) => portabilityProblems(x, `${path}/${i}`));
  if (!schema || typeof schema !== "object") return [];
  const out: string[] = [];
  const node = schema as Schema;
  if (Array.isArray(node.type)) out.push(`${path}: type array ${JSON.stringify(node.type)}`);
  if ("nullable" in node) out.push(`${path}: nullable (OpenAPI 3.0 only)`);
  if (node.$schema === DIALECT_2020_12) out.push(`${path}: $schema a draft-07 checker cannot resolve`);
  for (const [k, x] of Object.entries(node)) {
    if (k === "enum" || k === "const" || k === "default" || k === "examples") continue;
    out.push(...portabilityProblems(x, `${path}/${k}`));
  }
  return out;
}
