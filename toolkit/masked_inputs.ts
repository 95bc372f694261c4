/**
 * An input rule for every read tool: a name as answers show it masked is refused, not answered 0.
 *
 * Answers mask personal data inside names (lib/answers/privacy.ts): an event "signup jane@x.test" is listed as
 * "signup [email]", a page "/account/jane@x.test" as "/account/[email]". What a placeholder stands for is
 * never stored in its place, so asked back with the shown name a tool matched nothing and answered 0, with no
 * notice, and an assistant, which only ever sees the masked form, could not tell. So an input that names an
 * event, a page, a property, a property value, a source or a search, and holds a placeholder, is a 422 naming
 * the field, why, and what to ask instead. Matching the masked form against the names stored is not done: a
 * placeholder stands for many names (every address), so the answer would merge them under one shown name.
 *
 * Fields are known by their name wherever they stand in the input (`steps[1].event` too), so a tool gets the
 * rule by naming its fields as the others do. The pipeline applies it after the input schema (run.ts) and to a
 * saved insight's inputs, when saved and when run. A tool whose texts are stored masked (reviews: a search
 * for "[email]" finds the reviews that held an address) declares `storedMasked` and is left alone.
 */
import { MASKS } from "../lib/answers/privacy.ts";
import { formatPath } from "../lib/schemas/zod_errors.ts";

type Kind = "event" | "page" | "property" | "value" | "source" | "search";

/** Input fields that name something the engine matches as stored, by their name in any tool's input. */
const FIELD_KINDS: Record<string, Kind> = {
  event: "event",
  conversion_event: "event",
  cohort_event: "event",
  return_event: "event",
  page: "page",
  property: "property",
  property_value: "value",
  value: "value",
  source: "source",
  search: "search",
};

const WHAT: Record<Exclude<Kind, "search">, string> = {
  event: "an event name",
  page: "a page path",
  property: "a property name",
  value: "a property value",
  source: "a source",
};

/** The placeholders a text holds, as answers write them (a search ignores case, so "[EMAIL]" too). */
function masksIn(text: string, anyCase: boolean): { mask: string; stands_for: string }[] {
  const seen = anyCase ? text.toLowerCase() : text;
  return MASKS.filter((m) => seen.includes(m.mask));
}

/** The text without its placeholders: what a search may still find ("signup [email]": "signup"). */
function withoutMasks(text: string, page: boolean): string {
  let out = text;
  for (const { mask } of MASKS) out = out.replace(new RegExp(mask.replace(/[[\]]/g, "\\$&"), "gi"), " ");
  out = out.replace(/\s+/g, " ");
  // a path keeps its slashes ("/account/"); a name loses the separators left around the placeholder
  return page ? out.trim() : out.replace(/^[\s\-_.:,;/@#|]+|[\s\-_.:,;/@#|]+$/g, "");
}

function advice(kind: Kind, text: string): string {
  const rest = withoutMasks(text, kind === "page");
  const usable = rest !== "" && rest !== "/";
  switch (kind) {
    case "event":
      return (usable
        ? `behavior_events with search ${
          JSON.stringify(rest)
        } lists the events whose names hold it (each shown masked); `
        : "") +
        "to ask about such an event, have it sent under a name without the personal data (rename it at the source)";
    case "page":
      return usable
        ? `behavior_pages with search ${
          JSON.stringify(rest)
        } lists the pages under it (each shown masked), and ` +
          `a funnel or path step ${
            JSON.stringify(rest.endsWith("/") ? `${rest}*` : `${rest}/*`)
          } covers them all`
        : "ask about a page without it, or leave page out";
    case "property":
      return "behavior_event_properties lists an event's properties; to ask about this one, have it sent under " +
        "a name without the personal data";
    case "value":
      return "leave the value out (behavior_event_properties counts a property's values, those holding personal " +
        "data shown masked), or ask about another value";
    case "source":
      return "leave source out (behavior_sources lists the sources), or ask about another one";
    case "search":
      return usable
        ? `search for the part without it: ${JSON.stringify(rest)}`
        : "search for a part of the name without it, or leave search out";
  }
}

function problem(kind: Kind, text: string, path: readonly PropertyKey[]): string | null {
  const found = masksIn(text, kind === "search");
  if (found.length === 0) return null;
  const placeholders = found.map((m) => `"${m.mask}"`).join(" and ");
  const standsFor = found.map((m) => m.stands_for).join(" and ");
  const why = kind === "search"
    ? `holds ${placeholders}, which is how answers show ${standsFor}; names hold the ${
      found.length === 1 ? "original" : "originals"
    }, never ${placeholders}, so the search matches nothing`
    : `is how answers show ${WHAT[kind]} holding ${standsFor}; answers never show or match ${
      found.length === 1 ? "it" : "them"
    }, and ${placeholders} names nothing stored (the answer would be 0)`;
  return `${formatPath(path, "input")}: ${JSON.stringify(text)} ${why}; ${advice(kind, text)}`;
}

/**
 * The first input field naming an event, page, property, value, source or search as answers show it masked,
 * as a message for a 422 ("event: "signup [email]" is how answers show …; …"), or null.
 */
export function maskedNameProblem(input: unknown, path: PropertyKey[] = []): string | null {
  if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) {
      const p = maskedNameProblem(input[i], [...path, i]);
      if (p) return p;
    }
    return null;
  }
  if (input === null || typeof input !== "object") return null;
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const kind = Object.hasOwn(FIELD_KINDS, key) ? FIELD_KINDS[key] : undefined;
    const p = typeof value === "string"
      ? (kind ? problem(kind, value, [...path, key]) : null)
      : maskedNameProblem(value, [...path, key]);
    if (p) return p;
  }
  return null;
}
