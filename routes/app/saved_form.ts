/**
 * The cohort and insight forms' fields, both ways: form rows → a cohort definition (lib/saved/definition.ts)
 * and back, and a tool's JSON Schema → input fields → the tool's input. Pure functions, so the pages stay thin.
 */
import type { CohortNode, CohortWindow, Condition } from "../../lib/saved/definition.ts";
import { invalid } from "../../lib/errors.ts";
import { guardJson } from "../../lib/schemas/json_limits.ts";

/**
 * A form field holding JSON, read by the one body guard (depth, sizes, well-formed text, numbers a double
 * holds) as every JSON body is; a refusal names the field.
 */
export function formJson(text: string, name: string): unknown {
  const g = guardJson(text, undefined, name);
  if (g.ok) return g.value;
  throw invalid(g.notJson ? `${name}: not valid JSON` : g.message);
}

export const ROWS = 6;
export const KINDS = ["event", "page", "first_touch", "country", "device"] as const;
export const WINDOWS = ["period", "7", "30", "90"] as const;

/** One condition row of the cohort form. */
export interface Row {
  mode: "did" | "not";
  kind: (typeof KINDS)[number] | "";
  value: string;
  page_match: "exact" | "prefix";
  field: "source" | "channel" | "campaign";
  prop_name: string;
  prop_value: string;
  min: string;
  window: (typeof WINDOWS)[number];
}

export const emptyRow = (): Row => ({
  mode: "did",
  kind: "",
  value: "",
  page_match: "exact",
  field: "source",
  prop_name: "",
  prop_value: "",
  min: "",
  window: "period",
});

const list = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);

function windowOf(w: Row["window"]): CohortWindow | undefined {
  return w === "period" ? undefined : { last_days: Number(w) };
}

function conditionOf(r: Row, n: number): Condition {
  const window = windowOf(r.window);
  const min = r.min ? Number(r.min) : undefined;
  if (min !== undefined && (!Number.isInteger(min) || min < 1)) {
    throw invalid(`condition ${n}: "at least" is a whole number of times, 1 or more`);
  }
  const need = (what: string) => {
    if (!r.value) throw invalid(`condition ${n}: ${what}`);
  };
  const extra = { ...(window ? { window } : {}) };
  switch (r.kind) {
    case "event":
      need("name the event, e.g. sign_up");
      return {
        kind: "event",
        event: r.value,
        ...(r.prop_name ? { property: { name: r.prop_name, op: "eq" as const, value: r.prop_value } } : {}),
        ...(min ? { min_count: min } : {}),
        ...extra,
      };
    case "page":
      need("give a page path, e.g. /pricing");
      return {
        kind: "page",
        ...(r.page_match === "prefix" ? { prefix: r.value } : { path: r.value }),
        ...(min ? { min_count: min } : {}),
        ...extra,
      };
    case "first_touch":
      need(`give the ${r.field}`);
      return { kind: "first_touch", field: r.field, values: list(r.value), ...extra };
    case "country":
      need("give country codes, e.g. DE, FR");
      return { kind: "country", values: list(r.value).map((x) => x.toUpperCase()), ...extra };
    case "device":
      need("give devices: desktop, mobile or tablet");
      return { kind: "device", values: list(r.value).map((x) => x.toLowerCase()) as "mobile"[], ...extra };
    default:
      throw invalid(`condition ${n}: choose what to check`);
  }
}

/** The definition a form describes: its advanced JSON when given, else its rows combined with all / any. */
export function definitionFromForm(form: URLSearchParams): unknown {
  const json = (form.get("definition_json") ?? "").trim();
  if (json) {
    return formJson(json, "definition (JSON)");
  }
  const rows = readRows(form).filter((r) => r.kind !== "");
  if (!rows.length) throw invalid("add at least one condition");
  const nodes: CohortNode[] = rows.map((r, i) => {
    const c = conditionOf(r, i + 1);
    return r.mode === "not" ? { not: c } : c;
  });
  if (nodes.length === 1) return nodes[0];
  return form.get("match") === "any" ? { any: nodes } : { all: nodes };
}

export function readRows(form: URLSearchParams): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < ROWS; i++) {
    const g = (k: string) => (form.get(`c${i}_${k}`) ?? "").trim();
    const base = emptyRow();
    rows.push({
      mode: g("mode") === "not" ? "not" : "did",
      kind: (KINDS as readonly string[]).includes(g("kind")) ? g("kind") as Row["kind"] : "",
      value: g("value"),
      page_match: g("page_match") === "prefix" ? "prefix" : "exact",
      field: (["source", "channel", "campaign"] as const).find((f) => f === g("field")) ?? base.field,
      prop_name: g("prop_name"),
      prop_value: g("prop_value"),
      min: g("min"),
      window: (WINDOWS as readonly string[]).includes(g("window")) ? g("window") as Row["window"] : "period",
    });
  }
  return rows;
}

function rowOf(n: CohortNode): Row | null {
  let mode: Row["mode"] = "did";
  if ("not" in n) {
    mode = "not";
    n = n.not;
  }
  if ("all" in n || "any" in n || "not" in n) return null;
  const w = n.window;
  const window = !w || "period" in w
    ? "period"
    : "last_days" in w && ["7", "30", "90"].includes(String(w.last_days))
    ? String(w.last_days) as Row["window"]
    : null;
  if (!window) return null;
  const r: Row = { ...emptyRow(), mode, kind: n.kind, window };
  if (n.kind === "event") {
    if (n.property && (n.property.op !== "eq" || Array.isArray(n.property.value))) return null;
    Object.assign(r, {
      value: n.event,
      prop_name: n.property?.name ?? "",
      prop_value: (n.property?.value as string) ?? "",
      min: n.min_count ? String(n.min_count) : "",
    });
  } else if (n.kind === "page") {
    Object.assign(r, {
      value: n.path ?? n.prefix ?? "",
      page_match: n.prefix !== undefined ? "prefix" : "exact",
      min: n.min_count ? String(n.min_count) : "",
    });
  } else if (n.kind === "first_touch") Object.assign(r, { field: n.field, value: n.values.join(", ") });
  else Object.assign(r, { value: n.values.join(", ") });
  return r;
}

/** A saved definition as form rows, or null when it needs the JSON field (nested, other windows). */
export function rowsOf(def: CohortNode): { match: "all" | "any"; rows: Row[] } | null {
  const top = "all" in def
    ? { match: "all" as const, nodes: def.all }
    : "any" in def
    ? { match: "any" as const, nodes: def.any }
    : { match: "all" as const, nodes: [def] };
  if (top.nodes.length > ROWS) return null;
  const rows = top.nodes.map(rowOf);
  if (rows.some((r) => r === null)) return null;
  while (rows.length < ROWS) rows.push(emptyRow());
  return { match: top.match, rows: rows as Row[] };
}

// ---- insight inputs from a tool's JSON Schema

export interface InputField {
  name: string;
  /** text, number, integer, boolean, enum, multi (a list of choices), json (other arrays and objects) */
  type: "text" | "number" | "integer" | "boolean" | "enum" | "multi" | "json";
  options: string[];
  description: string;
  required: boolean;
}

type Json = Record<string, unknown>;

/** The fields of a tool's input schema an insight sets (its website or app is chosen apart). */
export function inputFields(schema: Json): InputField[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).filter(([name]) => name !== "touchpoint").map(([name, s]) => {
    const items = (s.items ?? {}) as Json;
    const multi = s.type === "array" && Array.isArray(items.enum) ? items.enum as string[] : null;
    const e = (s.enum as string[] | undefined) ?? multi;
    const t = s.type as string | undefined;
    const type: InputField["type"] = multi
      ? "multi"
      : e
      ? "enum"
      : t === "string"
      ? "text"
      : t === "integer"
      ? "integer"
      : t === "number"
      ? "number"
      : t === "boolean"
      ? "boolean"
      : "json";
    return {
      name,
      type,
      options: e ?? [],
      description: String(s.description ?? ""),
      required: required.has(name),
    };
  });
}

/** The tool input the form describes: empty fields are left out; numbers, booleans and JSON are parsed. */
export function inputFromForm(fields: InputField[], form: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (form.get(`in_${f.name}`) ?? "").trim();
    if (f.type === "boolean") {
      if (v === "true") out[f.name] = true;
      continue;
    }
    if (f.type === "multi") {
      const chosen = form.getAll(`in_${f.name}`).filter((x) => f.options.includes(x));
      if (chosen.length) out[f.name] = chosen;
      continue;
    }
    if (!v) continue;
    if (f.type === "number" || f.type === "integer") {
      const n = Number(v);
      if (!Number.isFinite(n)) throw invalid(`input.${f.name}: a number`);
      out[f.name] = n;
    } else if (f.type === "json") {
      out[f.name] = formJson(v, `input.${f.name}`);
    } else out[f.name] = v;
  }
  return out;
}

/** A saved input's value as the form shows it. */
export function fieldValue(f: InputField, input: Record<string, unknown>): string {
  const v = input[f.name];
  if (v === undefined || v === null) return "";
  return f.type === "json" ? JSON.stringify(v) : Array.isArray(v) ? v.join(",") : String(v);
}
