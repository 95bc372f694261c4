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

/** Keywords whose value is one subschema (`items` may also be an array of them). */
const SUBSCHEMA = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contentSchema",
];
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];
/** Positions where a bare `true` is the usual spelling of "anything". */
const BOOLEAN_VALUED = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
]);
/** Keywords that constrain a value; a schema with none of them (zod's `z.unknown()` is `{}`) accepts anything. */
const CONSTRAINING = new Set([
  "type",
  "enum",
  "const",
  ...Object.values(BY_TYPE).flat(),
  "dependencies",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
]);

/** "Any JSON value" spelled with one type per branch, for positions where `{}` would be read as untyped. */
const ANY_JSON = ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type }));

const isRecord = (v: unknown): v is Schema => !!v && typeof v === "object" && !Array.isArray(v);
const constrains = (node: Schema) =>
  Object.keys(node).some((k) => CONSTRAINING.has(k)) || ("if" in node && ("then" in node || "else" in node));

/**
 * One schema in portable form, knowing which of its keywords hold subschemas: type arrays as anyOf, no
 * 2020-12 `$schema`, and a schema that constrains nothing written as what it means (`true` where a boolean
 * is usual, else anyOf every JSON type), since checkers such as the MCP Inspector warn on a bare `{}`.
 */
function portableNode(v: unknown, keyword?: string): unknown {
  if (!isRecord(v)) return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "$schema" && x === DIALECT_2020_12) continue;
    if (SUBSCHEMA_MAP.includes(k) && isRecord(x)) {
      out[k] = Object.fromEntries(Object.entries(x).map(([name, s]) => [name, portableNode(s, k)]));
    } else if ((SUBSCHEMA_LIST.includes(k) || k === "items") && Array.isArray(x)) {
      out[k] = x.map((s) => portableNode(s, k));
    } else if (SUBSCHEMA.includes(k)) out[k] = portableNode(x, k);
    else out[k] = x; // data (enum, const, default, examples) and annotations, as they are
  }
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    if (types.length === 1) out.type = types[0];
    else return splitTypes(out, types);
  }
  if (keyword !== "not" && !constrains(out)) {
    if (keyword && BOOLEAN_VALUED.has(keyword)) return true;
    return { ...out, anyOf: ANY_JSON.map((b) => ({ ...b })) };
  }
  return out;
}

/**
 * A document that holds schemas (an OpenAPI document): every value under `schema`, and each entry under
 * `schemas`, is a schema; everything else is walked for type arrays only.
 */
function portableDocument(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(portableDocument);
  if (!isRecord(v)) return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "schema") out[k] = portableNode(x);
    else if (k === "schemas" && isRecord(x)) {
      out[k] = Object.fromEntries(Object.entries(x).map(([name, s]) => [name, portableNode(s)]));
    } else {out[k] = k === "enum" || k === "const" || k === "default" || k === "examples"
        ? x
        : portableDocument(x);}
  }
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    if (types.length === 1) out.type = types[0];
    else return splitTypes(out, types);
  }
  return out;
}

/**
 * A copy of a schema (or of an OpenAPI document's schemas) in portable form: every type array written as
 * anyOf, no 2020-12 `$schema`, no schema that constrains nothing; the meaning unchanged.
 */
export function portableSchema<T>(schema: T): T {
  const isDocument = isRecord(schema) && typeof schema.openapi === "string";
  return (isDocument ? portableDocument(schema) : portableNode(schema)) as T;
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
