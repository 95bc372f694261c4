/**
 * The text rendering of an answer that MCP results carry beside the structured JSON. Generated from the JSON
 * alone, so it can never say something the JSON does not; and complete enough that a reader who sees only
 * the text can answer the question: every figure keeps its name, a compared figure keeps what it is of, and
 * lists (also lists inside list items) are printed as indented lists. Strings come from visitors too (a page
 * path, an event name: anyone holding a site's public key sends them), so none can start a line (controls are
 * escaped), an item's name that could pass for figures or Markdown is a code span, and link or image syntax in
 * other text is escaped.
 */
import { oneLine } from "../text.ts";
import { shownPath } from "../url_path.ts";
import { duration, milliseconds } from "../format/duration.ts";
import { ISO_TIME, localTime, timesInText } from "../format/times.ts";

/**
 * Fields whose name in text is not their own: behavior_sessions' `pages_seen` counts pageviews, and its `pages`
 * list merges a page's repeats, so "pages seen 5" beside four pages read as a contradiction.
 */
const LABEL_WORDS: Record<string, string> = { pages_seen: "pageviews" };

/** A field's name in words; a unit suffix (`_s`, `_ms`, `_percent`) is said by the value instead ("1 min 19 s"). */
const label = (k: string) =>
  Object.hasOwn(LABEL_WORDS, k)
    ? LABEL_WORDS[k]
    : textLine(k.replace(/(?<=.)_(s|ms|percent|pct)$/, "").replaceAll("_", " "));

/**
 * An item's flag in words, true and false: "own" and "not own", but a flag named by a verb or a noun reads as
 * one ("sends visitors" / "sends no visitors", not "not sends visitors").
 */
const FLAG_WORDS: Record<string, [string, string]> = {
  sends_visitors: ["sends visitors", "sends no visitors"],
  home_allowed: ["home allowed", "home not allowed"],
  api_access: ["API access", "no API access"],
  ai: ["AI", "not AI"],
  include_events: ["events included", "events not included"],
};
const flag = (k: string, x: boolean) =>
  Object.hasOwn(FLAG_WORDS, k) ? FLAG_WORDS[k][x ? 0 : 1] : x ? label(k) : `not ${label(k)}`;

/**
 * Fields whose values are enums of the answer (a rating, a kind, an intent, a category), not visitors' data:
 * their snake_case values read as words ("needs_improvement" reads "needs improvement", "ai_agent" "AI agent").
 * Names (event names, page paths, property values) are never in these fields and stay exactly as stored.
 */
const ENUM_FIELDS = new Set([
  "rating",
  "kind",
  "intent",
  "dominant_intent",
  "rising",
  "falling",
  "category",
  "categories",
  "traffic",
  "status",
  "trend",
  "direction",
  "outcome",
  "verdict",
]);
const ENUM_VALUE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;
const enumWords = (s: string) => s.split("_").map((w) => (w === "ai" ? "AI" : w)).join(" ");

/** Objects whose values are fractions of a whole (a rating's shares, a sentiment's split): shown as percent. */
const SHARE_OBJECTS = /(^|_)(shares|sentiment)$/;

/**
 * Fields holding a time: an ISO time in them reads in the scope's time zone ("29 Nov 2026, 20:34"), or in UTC,
 * said, when the answer names none. `Zone` is that scope's zone, passed down to each value (in Ctx).
 */
const TIME_FIELD = /(^|_)(at|date|time|timestamp|seen|since|until|from|to)$/;
type Zone = string | null;

/** Text for assistants: plain spaces inside a figure ("1 min 19 s"), the year with every time. */
const TEXT = { year: true, space: " " } as const;
/** A name that reads as itself: letters, digits, spaces and the characters of paths, hosts and event names. */
const PLAIN_NAME = /^[\p{L}\p{N}\p{M} ./_\-~%+=&?@'()#$]*$/u;

/**
 * An item's name as printed: as it is when plain, else as a Markdown code span (a longer backtick fence when
 * it holds backticks) with its controls escaped, so it reads as one literal value: never figures of its own,
 * a link, or an image a client that renders Markdown would fetch.
 */
function nameText(stored: string): string {
  const x = readable(stored);
  if (x === "") return '""'; // an empty name is said, not left out
  if (PLAIN_NAME.test(x)) return x;
  const text = oneLine(x);
  const fence = "`".repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A page path (a page, an entry or exit page, a path's step, a crawler's hit) as people read it: "/café", not
 * the stored "/caf%C3%A9" (lib/url_path.ts shownPath decodes only what cannot change its meaning). The JSON
 * keeps the stored form, which scripts filter with; any path's spelling matches it.
 */
const readable = (s: string) => (s.startsWith("/") ? shownPath(s) : s);

/** Markdown's link and image syntax, autolinks and HTML tags: inert once their brackets are backslash-escaped. */
const MD_LINK = /\]\s*[([]|<[a-z!/?]/i;

/** A free-text line with a visitor's string in it: one line, and no link or image when it holds one. */
function textLine(s: string): string {
  const line = oneLine(s);
  return MD_LINK.test(line) ? line.replace(/[[\]<>!]/g, "\\$&") : line;
}

type Obj = Record<string, unknown>;

/** Text people write about a saved item: empty means there is none (a name or property value "" is said). */
const UNSAID_WHEN_EMPTY = new Set(["description"]);

const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const isList = (v: unknown): v is unknown[] => Array.isArray(v) && v.some(isObj);
const present = (v: unknown) => v !== null && v !== undefined;

/** Fields that say what an item is: printed first, as "dimension name", before its figures. */
const IDENTITY = [
  "step",
  "dimension",
  "name",
  "label",
  "crawler",
  "vendor",
  "page",
  "path",
  "file",
  "source",
];

/**
 * What the numbers of an answer are, beyond their names: `zone` (see Zone), and `rates` when the answer's
 * `metric` is a rate (behavior_explain_change of bounce_rate or conversion_rate), whose schema gives its
 * value and previous as rates 0-1 and its difference, contribution, mix and rate parts as differences of rates.
 */
type Ctx = { zone: Zone; rates: boolean };

/**
 * Fractions 0-1 whose names say so are shown as percentages (conversion 0.26 reads as 26%): rates, shares,
 * conversions, and behavior_retention's `rates` and `average_curve` (return rates, by their schema).
 */
const isFraction = (key: string) =>
  /(^|_)(rate|rates|share|conversion)($|_)/.test(key) || key.startsWith("conversion_") ||
  key === "average_curve";

/** Differences of two rates (feedback_themes' share_change: share now minus share before): percentage points. */
const isPoints = (key: string) => key === "share_change";

/** A rate metric's figures (behavior_explain_change): its values are rates, its differences points. */
const RATE_VALUES = new Set(["value", "previous"]);
const RATE_DIFFERENCES = new Set(["difference", "contribution", "mix", "rate"]);

/** Numbers that name rather than count (ids, years, versions, ports, codes): printed as they are, no separators. */
const NOT_A_COUNT = /(^|_)(id|year|version|port|code|status|bucket|number|seed)$/;

/** A number as text: up to three decimals, thousands separated ("1,464") unless `plain`. */
function round(n: number, plain = false): string {
  const r = Number.isInteger(n) ? n : Math.round(n * 1000) / 1000;
  return plain ? String(r) : r.toLocaleString("en-US", { maximumFractionDigits: 3 });
}

const percent = (v: number) => `${round(Math.round(v * 1000) / 10)}%`;
/** A difference of two rates in percentage points, signed: "-0.4 pts", "+3.3 pts". */
const points = (d: number) => {
  const p = Math.round(d * 1000) / 10;
  return `${p > 0 ? "+" : p < 0 ? "-" : "±"}${round(Math.abs(p))} pts`;
};

function scalar(c: Ctx, v: unknown, key = "", share = false): string {
  if (v === null || v === undefined) return "n/a";
  if (typeof v === "number") {
    if (share) return percent(v);
    if (c.rates && RATE_VALUES.has(key)) return percent(v);
    if ((c.rates && RATE_DIFFERENCES.has(key)) || isPoints(key)) return points(v);
    if (/(?<=.)_s$/.test(key)) return duration(v, TEXT.space);
    if (/(?<=.)_ms$/.test(key)) return milliseconds(v, TEXT.space);
    if (/(?<=.)_(percent|pct)$/.test(key)) return `${round(v)}%`; // already a percentage: 45.3 reads 45.3%
    if (isFraction(key)) return percent(v);
    return round(v, NOT_A_COUNT.test(key) || TIME_FIELD.test(key));
  }
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "boolean") return flag(key, v);
  if (v === "") return '""'; // an empty value (a property sent with the key "") is said, not left out
  if (typeof v === "string" && ENUM_FIELDS.has(key) && ENUM_VALUE.test(v)) return enumWords(v);
  if (typeof v === "string" && TIME_FIELD.test(key) && ISO_TIME.test(v)) return localTime(v, c.zone, TEXT);
  return textLine(readable(String(v)));
}

function isCompared(v: Obj): boolean {
  return "value" in v && "previous" in v && "change" in v;
}

/**
 * The field a figure is named after, when its name is one with a unit (a dashboard's headline figure
 * {name: "bounce_rate", value: 0.56} or "/pricing: exit_rate"): its value reads in that unit ("56%"), else "".
 */
function unitNamed(v: Obj): string {
  const tail = typeof v.name === "string" ? v.name.split(": ").pop()! : "";
  return /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(tail) && (isFraction(tail) || /_(s|ms|percent|pct)$/.test(tail))
    ? tail
    : "";
}

/**
 * "120 (previous 100, +20%)". A rate's comparison says its difference in points and calls its change (always
 * relative, by the schema) relative: "56.2% (previous 57%, -0.8 pts, -1.4% relative)", never "-1.4%" beside
 * percentages it is not the difference of.
 */
function comparison(c: Ctx, v: Obj, key: string): string {
  const named = unitNamed(v);
  const rate = isFraction(key) || isFraction(named) || c.rates;
  const k = c.rates ? "value" : named || key;
  const relative = typeof v.change === "number"
    ? `${v.change >= 0 ? "+" : ""}${round(Math.round(v.change * 1000) / 10)}%${rate ? " relative" : ""}`
    : null;
  const diff = typeof v.difference === "number"
    ? v.difference
    : typeof v.value === "number" && typeof v.previous === "number"
    ? v.value - v.previous
    : null;
  const moved = [rate && diff !== null ? points(diff) : null, relative].filter(Boolean);
  return `${scalar(c, v.value, k)} (previous ${scalar(c, v.previous, k)}${
    moved.map((m) => `, ${m}`).join("")
  })`;
}

/** The identity words of an item: "channel Organic Search", "page /pricing". */
function identity(v: Obj): { text: string; keys: Set<string> } {
  const keys = new Set<string>();
  const words: string[] = [];
  for (const k of IDENTITY) {
    const x = v[k];
    if (typeof x === "string" || (k === "step" && typeof x === "number")) {
      keys.add(k);
      const bare = k === "name" || k === "label" || k === "dimension"; // "browser Chrome", not "dimension browser"
      const name = typeof x === "string" ? nameText(x) : String(x);
      words.push(bare ? name : `${label(k)} ${name}`);
    }
  }
  return { text: words.join(" "), keys };
}

/** `pages_total` beside a `pages` list: said in the list's heading instead. */
const listTotal = (v: Obj, k: string) => k.endsWith("_total") && Array.isArray(v[k.slice(0, -6)]);

/** One line for a value: an item's identity first, then its comparison, then its other figures by name. */
/**
 * A figure beside its `previous` and relative `change` without being a comparison (a report finding's numbers:
 * {page, pageviews, previous, change}, {insight, conversion, previous, change}): the first other number, whose
 * unit `previous` shares.
 */
const previousOf = (v: Obj) =>
  Object.keys(v).find((k) => typeof v[k] === "number" && k !== "previous" && k !== "change") ?? "";

function inline(c: Ctx, v: unknown, key = "", share = false): string {
  if (Array.isArray(v)) return v.length ? v.map((x) => inline(c, x, key, share)).join("; ") : "none";
  if (!isObj(v)) return scalar(c, v, key, share && typeof v === "number" && v >= 0 && v <= 1);
  // an object naming its metric (a report finding's numbers) gives that metric's figures: rates when it is one
  if (typeof v.metric === "string") c = { ...c, rates: isFraction(v.metric) };
  if (!isCompared(v) && "previous" in v && typeof v.change === "number") {
    const of = previousOf(v);
    const rate = isFraction(of) || c.rates;
    const relative = `${v.change >= 0 ? "+" : ""}${round(Math.round(v.change * 1000) / 10)}%`;
    const rest = Object.fromEntries(Object.entries(v).filter(([k]) => k !== "previous" && k !== "change"));
    const text = inline(c, rest, key, share);
    return `${text}, previous ${scalar(c, v.previous, of)}, change ${relative}${rate ? " relative" : ""}`;
  }
  const id = identity(v);
  const parts: string[] = [];
  const skip = new Set(id.keys);
  if (isCompared(v)) {
    parts.push(comparison(c, v, key));
    for (const k of ["value", "previous", "change", "difference", "units"]) skip.add(k);
  }
  for (const [k, x] of Object.entries(v)) {
    if (skip.has(k) || !present(x) || isList(x) || listTotal(v, k)) continue;
    if (x === "" && UNSAID_WHEN_EMPTY.has(k)) continue; // no description: nothing to say
    // an item's flag reads as a word: "own", "not followed" ("described true" read as code)
    if (typeof x === "boolean") parts.push(flag(k, x));
    else if (k === "value" && typeof x === "number" && unitNamed(v)) {
      parts.push(`value ${scalar(c, x, unitNamed(v))}`);
    } else if (isObj(x) && !Object.keys(x).length) parts.push(`${label(k)} (none)`); // {}: said, not "definition ,"
    else {
      // a segment's units (visitors or sessions) are counts even where its figures are rates
      const text = inline(k === "units" ? { ...c, rates: false } : c, x, k, SHARE_OBJECTS.test(key));
      // an object of lists only (a cohort's definition {all: [...]}) has no figures of its own to say here
      if (text !== "" || !isObj(x)) parts.push(`${label(k)} ${text}`);
    }
  }
  const body = parts.join(", ");
  if (!id.text) return body;
  return body ? `${id.text}: ${body}` : id.text;
}

/** Lists inside a value (an item's segments, a section's vendors) printed under it, one level deeper. */
function nested(c: Ctx, v: Obj, indent: string, lines: string[], answer: Obj): void {
  for (const [k, x] of Object.entries(v)) if (isList(x)) list(c, k, x, indent, lines, answer);
}

function list(c: Ctx, key: string, items: unknown[], indent: string, lines: string[], total: Obj): void {
  const t = total[`${key}_total`];
  lines.push(`${indent}${label(key)} (${items.length}${typeof t === "number" ? ` of ${t}` : ""}):`);
  for (const item of items) {
    lines.push(`${indent}- ${inline(c, item)}`);
    if (isObj(item)) nested(c, item, `${indent}  `, lines, item);
  }
}

function renderScope(scope: Obj): string {
  const p = scope.period as Obj | null;
  const tp = scope.touchpoint as Obj | null;
  const parts = [
    p ? `${p.from_date} to ${p.to_date} (${p.name})` : null,
    String(scope.timezone),
    String(scope.environment),
    tp ? `${tp.kind} ${tp.name}` : null,
    `traffic: ${scope.traffic}`,
    scope.filter ? `filter: ${scope.filter}` : null,
    scope.page ? `page: ${scope.page}` : null,
  ];
  return textLine(`Scope: ${parts.filter(Boolean).join("; ")}`);
}

export function renderAnswer(tool: string, answer: Obj): string {
  const tz = isObj(answer.scope) ? answer.scope.timezone : null;
  const zone: Zone = typeof tz === "string" && tz ? tz : null;
  const c: Ctx = { zone, rates: typeof answer.metric === "string" && isFraction(answer.metric) };
  const lines = [`${tool}`];
  if (answer.scope) lines.push(renderScope(answer.scope as Obj));
  for (const [k, v] of Object.entries(answer)) {
    if (k === "scope" || k === "notices" || listTotal(answer, k)) continue;
    // filler: a field this answer does not use (n/a) and the first page's offset say nothing
    if (!present(v) || (k === "offset" && v === 0)) continue;
    if (isList(v)) list(c, k, v, "", lines, answer);
    else if (isObj(v) && !isCompared(v) && Object.values(v).some(isList)) {
      // a section holding lists: its own figures on one line, its lists under it
      const own = inline(
        c,
        Object.fromEntries(Object.entries(v).filter(([j, x]) => !isList(x) && !listTotal(v, j))),
      );
      lines.push(own ? `${label(k)}: ${own}` : `${label(k)}:`);
      nested(c, v, "  ", lines, v);
    } else if (Array.isArray(v) && v.length === 0) lines.push(`${label(k)}: none`);
    else lines.push(`${label(k)}: ${inline(c, v, k)}`);
  }
  const notices = answer.notices as string[] | undefined;
  // a notice's times ("data fresh to 2026-11-29T21:56:47.064Z") read in the answer's zone, like other times
  const inZone = (n: string) => timesInText(n, zone ?? "UTC", TEXT);
  if (notices?.length) lines.push(textLine(`Notes: ${notices.map((n) => inZone(String(n))).join(" | ")}`));
  return lines.join("\n");
}
