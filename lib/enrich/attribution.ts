/**
 * Source and channel of a visit, from the referrer and UTM tags, in the manner of GA4's default
 * channel groups and Plausible, plus AI answer engines as a channel of their own. Order of rules
 * (first match wins; docs/enrichment.md has the table):
 *   nothing external → Direct · AI engine → AI Assistant · paid medium → Paid Search / Paid Social ·
 *   email medium or source → Email · search engine or medium "organic" → Organic Search ·
 *   social network or social medium → Organic Social · anything else with a source → Referral.
 */
import type { Channel, Utm } from "../store/records.ts";
import { type KnownSource, sourceOfHost, sourceOfName, stripWww } from "./sources.ts";

/** `context.last_touch` as the web SDK sends it (docs/events.md); any field may be null. */
export interface LastTouch {
  source?: string | null;
  medium?: string | null;
  campaign?: string | null;
  term?: string | null;
  content?: string | null;
  referrer_host?: string | null;
  landing_path?: string | null;
}

export interface AttributionInput {
  /** `properties.referrer`: the full referrer URL as the browser gave it. */
  referrer: string | null | undefined;
  /** `properties.url`: the page URL; its utm_* (and gclid/msclkid/fbclid, ref) parameters count. */
  url: string | null | undefined;
  /** `properties.utm_*` when sent as separate properties; they win over the URL's. */
  utm?: Partial<Utm> | null;
  /** `context.last_touch`, used only when the event itself carries no UTM and no outside referrer. */
  lastTouch?: LastTouch | null;
  /** The page's host (from `properties.url` or the Origin); referrers from it or its subdomains are internal. */
  pageHost: string | null | undefined;
}

export interface Attribution {
  referrer_host: string | null;
  source: string; // "(direct)", a known short name ("google", "chatgpt"), a host without www, or utm_source
  channel: Channel;
  utm: Utm | null;
}

const UTM_FIELDS = ["source", "medium", "campaign", "term", "content"] as const;
const MAX_UTM = 200;

const PAID = /^(?:.*cp.*|ppc|sem|retargeting|paid.*|.*[_-]paid|ads?)$/;
const PAID_SEARCH = /^(?:cpc|ppc|sem|paid[_ -]?search|search[_ -]?paid|.*search.*)$/;
const SOCIAL_MEDIUM = /^(?:social|social[_ -]?network|social[_ -]?media|sm|organic[_ -]?social)$/;
const EMAIL = /^(?:e[_ -]?mail|newsletter|.*newsletter.*|.*e[_ -]?mail.*)$/;
const NONE_MEDIUM = /^(?:\(none\)|none|\(not set\)|direct|\(direct\))$/;

function clean(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const s = v.trim();
  return s ? s.slice(0, MAX_UTM) : null;
}

function parseUrl(s: string | null | undefined): URL | null {
  const v = clean(s);
  if (!v) return null;
  try {
    return new URL(v);
  } catch {
    try {
      return /^[\w-]+(\.[\w-]+)+(\/|$)/.test(v) ? new URL(`https://${v}`) : null; // "google.com/…"
    } catch {
      return null;
    }
  }
}

function hostOf(u: URL | null): string | null {
  const h = u?.hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return h ? h : null;
}

function sameSite(a: string, b: string): boolean {
  const x = stripWww(a), y = stripWww(b);
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}

function utmFrom(url: URL | null, given: Partial<Utm> | null | undefined): Utm | null {
  const utm = {} as Utm;
  let any = false;
  for (const f of UTM_FIELDS) {
    utm[f] = clean(given?.[f]) ?? clean(url?.searchParams.get(`utm_${f}`));
    if (utm[f]) any = true;
  }
  return any ? utm : null;
}

/** Ad-click ids and `ref=` name a source when UTM tags are missing; they are not stored as UTM. */
function clickHint(url: URL | null): { source: string; medium: string | null } | null {
  const q = url?.searchParams;
  if (!q) return null;
  if (q.has("gclid") || q.has("gbraid") || q.has("wbraid")) return { source: "google", medium: "cpc" };
  if (q.has("msclkid")) return { source: "bing", medium: "cpc" };
  if (q.has("fbclid")) return { source: "facebook", medium: null };
  const ref = clean(q.get("ref"));
  return ref ? { source: ref, medium: null } : null;
}

function channelOf(known: KnownSource | null, sourceText: string | null, medium: string | null): Channel {
  const m = medium?.toLowerCase() ?? "";
  const s = sourceText?.toLowerCase() ?? "";
  if (known?.kind === "ai") return "AI Assistant";
  if (m && PAID.test(m)) {
    if (known?.kind === "search") return "Paid Search";
    if (known?.kind === "social") return "Paid Social";
    if (m.includes("social")) return "Paid Social";
    if (PAID_SEARCH.test(m)) return "Paid Search";
    return "Referral"; // display or other paid placements from an unknown network
  }
  if (EMAIL.test(m) || EMAIL.test(s) || known?.kind === "email") return "Email";
  if (known?.kind === "search" || m === "organic") return "Organic Search";
  if (known?.kind === "social" || SOCIAL_MEDIUM.test(m)) return "Organic Social";
  if (!s && (!m || NONE_MEDIUM.test(m))) return "Direct";
  return "Referral";
}

const DIRECT: Attribution = Object.freeze({
  referrer_host: null,
  source: "(direct)",
  channel: "Direct",
  utm: null,
});

export function attribute(input: AttributionInput): Attribution {
  const page = parseUrl(input.url);
  const pageHost = hostOfPage(input.pageHost) ?? hostOf(page);
  const ref = parseUrl(input.referrer);
  let refHost = hostOf(ref);
  let refPath = ref?.pathname ?? "/";
  if (refHost && pageHost && sameSite(refHost, pageHost)) refHost = null; // moving inside the site
  let utm = utmFrom(page, input.utm);
  const hint = utm?.source ? null : clickHint(page);

  if (!utm && !hint && !refHost && input.lastTouch) {
    const lt = input.lastTouch;
    utm = utmFrom(null, lt);
    const ltHost = clean(lt.referrer_host)?.toLowerCase() ?? null;
    refHost = ltHost && !(pageHost && sameSite(ltHost, pageHost)) ? ltHost : null;
    refPath = "/";
  }
  if (!utm && !hint && !refHost) return { ...DIRECT };

  const tagSource = utm?.source ?? hint?.source ?? null;
  const tagMedium = utm?.medium ?? hint?.medium ?? null;
  const known = tagSource ? sourceOfName(tagSource) : refHost ? sourceOfHost(refHost, refPath) : null;
  const channel = channelOf(known, tagSource ?? refHost, tagMedium);
  let source: string;
  if (known) source = known.name;
  else if (tagSource) source = sourceName(tagSource);
  else if (refHost) source = stripWww(refHost);
  else source = channel === "Direct" ? "(direct)" : "(not set)"; // tagged with a medium or campaign only
  return { referrer_host: refHost, source, channel, utm };
}

function hostOfPage(v: string | null | undefined): string | null {
  const s = clean(v)?.toLowerCase();
  if (!s) return null;
  return s.includes("://") ? hostOf(parseUrl(s)) : s.replace(/:\d+$/, "").replace(/\.$/, "");
}

/** An unknown utm_source: lower case, and a host-like value without scheme, path or www. */
function sourceName(raw: string): string {
  const v = raw.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(v) || /^[\w-]+(\.[\w-]+)+(\/.*)?$/.test(v)) {
    return stripWww(v.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").split(/[/?#:]/)[0]);
  }
  return v;
}

/**
 * The attribution input of a web event, by the conventions of docs/events.md: `properties.referrer`,
 * `properties.url`, `properties.utm_*`, `context.last_touch`. `pageHost` defaults to the URL's host.
 */
export function attributionInputOf(
  ev: { properties: Record<string, unknown>; context?: Record<string, unknown> | null },
  pageHost: string | null = null,
): AttributionInput {
  const p = ev.properties;
  const utm: Partial<Utm> = {};
  for (const f of UTM_FIELDS) utm[f] = clean(p[`utm_${f}`]);
  const lt = ev.context?.last_touch;
  return {
    referrer: clean(p.referrer),
    url: clean(p.url),
    utm,
    lastTouch: lt && typeof lt === "object" && !Array.isArray(lt) ? lt as LastTouch : null,
    pageHost,
  };
}
