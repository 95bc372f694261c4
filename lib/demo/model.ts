/**
 * The traffic model: visitors with a place and a device, returning over days; sessions with a source,
 * an entry page, a path through the site and an exit; pageviews with scroll depth and engagement, clicks
 * (some rage clicks), form field changes and submits, web vitals, sign-ups and purchases; a little automated
 * traffic. Deterministic per seed.
 */
import { elementName, storedFingerprint } from "../enrich/element.ts";
import {
  COUNTRIES,
  DEVICES,
  ELEMENTS,
  FORMS,
  PAGES,
  type SourceDef,
  SOURCES,
  TITLES,
  userAgent,
} from "./world.ts";
import { Rng, Weighted, zipf } from "./random.ts";

export interface Draft {
  id: string;
  t: number; // receive time
  deviceTime: number;
  anon: string;
  user: string | null;
  session: string;
  seq: number;
  type: string;
  path: string;
  props: Record<string, unknown>;
  fingerprint: Record<string, unknown> | null;
  element: string | null;
  visitor: VisitorFacts;
  source: SourceDef;
  landing: boolean; // first pageview of the session: carries the referrer and UTM
  automated: { traffic: "bot" | "ai_agent"; crawler: string; ua: string } | null;
}

export interface VisitorFacts {
  country: (typeof COUNTRIES)[number];
  city: string;
  ip: string;
  device: (typeof DEVICES)[number];
  os: string;
  browser: string;
  ua: string;
}

export interface SiteSpec {
  events: number;
  visitors: number;
  days: number;
  end: number; // ms; events fall in [end - days, end)
  seed: number;
}

const countryW = new Weighted(COUNTRIES, COUNTRIES.map((c) => c.w));
const deviceW = new Weighted(DEVICES, DEVICES.map((d) => d.w));
const sourceW = new Weighted(SOURCES, SOURCES.map((s) => s.w));
/** Each device's operating systems and browsers by weight (made once, not once a visitor). */
const DEVICE_W = new Map(
  DEVICES.map((d) => [d, { os: new Weighted(d.os, d.osW), browser: new Weighted(d.browsers, d.bW) }]),
);
const pageW = zipf(PAGES, 1.15);
const contentPages = PAGES.filter((p) => p.startsWith("/blog/") || p.startsWith("/docs/"));
const contentW = zipf(contentPages, 1.0);
const HOUR_W = new Weighted(Array.from({ length: 24 }, (_, h) => h), [
  1,
  1,
  1,
  1,
  1,
  2,
  3,
  5,
  7,
  8,
  9,
  9,
  8,
  9,
  9,
  9,
  8,
  7,
  6,
  5,
  4,
  3,
  2,
  1.5,
]);
const OFFSET: Record<string, number> = {
  US: -5,
  DE: 1,
  GB: 0,
  IN: 5.5,
  FR: 1,
  BR: -3,
  CA: -5,
  NL: 1,
  JP: 9,
  AU: 11,
  ES: 1,
  PL: 1,
};
const AGENTS = [
  {
    traffic: "bot" as const,
    crawler: "HeadlessChrome",
    ua:
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
  },
  {
    traffic: "ai_agent" as const,
    crawler: "ChatGPT-User",
    ua:
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)",
  },
  {
    traffic: "ai_agent" as const,
    crawler: "Perplexity-User",
    ua:
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
  },
];
const DAY = 86_400_000;
/** The draws a draft takes: its id's 16 bytes and its device time's lag. */
const DRAFT_DRAWS = 17;

export class SiteModel {
  private r: Rng;
  private anon: string[] = [];
  private facts: VisitorFacts[] = [];
  private last: Float64Array;
  private user: (string | null)[] = [];
  private start: number;
  private keep: ((t: number) => boolean) | undefined;
  emitted = 0;

  constructor(private spec: SiteSpec) {
    this.r = new Rng(spec.seed);
    this.start = spec.end - spec.days * DAY;
    this.last = new Float64Array(spec.visitors);
  }

  private visitor(v: number): VisitorFacts {
    if (this.facts[v]) return this.facts[v];
    const r = this.r;
    const country = countryW.draw(r), device = deviceW.draw(r);
    const w = DEVICE_W.get(device)!;
    const os = w.os.draw(r);
    let browser = w.browser.draw(r);
    if (browser.includes("Safari") && os !== "iOS" && os !== "macOS") browser = "Chrome";
    this.anon[v] = r.uuid();
    this.user[v] = null;
    return this.facts[v] = {
      country,
      city: r.pick(country.cities),
      ip: `${country.ip}.${r.int(0, 255)}.${r.int(1, 254)}`,
      device,
      os,
      browser,
      ua: userAgent(os, browser),
    };
  }

  private sessionStart(v: number, returning: boolean): number {
    const r = this.r, f = this.facts[v];
    let day: number;
    if (returning && this.last[v] > 0) {
      const next = this.last[v] + r.exp(3 * DAY);
      day = next < this.spec.end ? Math.floor((next - this.start) / DAY) : r.int(0, this.spec.days - 1);
    } else day = r.int(0, this.spec.days - 1);
    const localHour = HOUR_W.draw(r) + r.next();
    const t = this.start + day * DAY + ((localHour - (OFFSET[f.country.code] ?? 0) + 24) % 24) * 3_600_000;
    return Math.min(t, this.spec.end - 3_600_000);
  }

  /**
   * Every event of the site, session by session, until `events` are out; with `keep`, only those whose
   * receive time it keeps: the others are counted and their random draws taken, but no draft is made (the
   * generator runs the model once per window of days).
   */
  *events(keep?: (t: number) => boolean): Generator<Draft> {
    this.keep = keep;
    const { visitors, events } = this.spec;
    const loyal = zipf(Array.from({ length: visitors }, (_, i) => i), 0.8);
    const out: Draft[] = []; // a session's drafts (a plain list: a generator object per event cost more)
    for (let v = 0; v < visitors && this.emitted < events; v++) {
      this.visitor(v);
      this.session(v, this.sessionStart(v, false), out);
      yield* out;
      out.length = 0;
    }
    while (this.emitted < events) {
      const v = loyal.draw(this.r);
      this.visitor(v);
      this.session(v, this.sessionStart(v, true), out);
      yield* out;
      out.length = 0;
    }
  }

  /** Appends a session's drafts to `out`. */
  private session(v: number, t0: number, out: Draft[]): void {
    const r = this.r, f = this.facts[v];
    const session = r.uuid();
    const source = sourceW.draw(r);
    const automated = r.chance(0.015) ? r.pick(AGENTS) : null;
    let t = t0;
    let page = source.lands === "home"
      ? (r.chance(0.7) ? "/" : pageW.draw(r))
      : source.lands === "pricing"
      ? "/pricing"
      : contentW.draw(r);
    const views = automated ? r.int(1, 3) : r.geometric(1.8);
    const emit = (
      type: string,
      path: string,
      seq: number,
      props: Record<string, unknown>,
      fp: Record<string, unknown> | null = null,
      el: string | null = null,
      landing = false,
    ): void => {
      if (this.emitted >= this.spec.events) return;
      this.emitted++;
      const at = Math.min(t, this.spec.end - 1); // a session running past the end is cut at it
      if (this.keep && !this.keep(at)) return r.skip(DRAFT_DRAWS);
      out.push({
        id: r.uuid(),
        t: at,
        deviceTime: at - r.int(20, 400),
        anon: this.anon[v],
        user: this.user[v],
        session,
        seq,
        type,
        path,
        props,
        fingerprint: fp,
        element: el,
        visitor: f,
        source,
        landing,
        automated,
      });
    };
    for (let k = 0; k < views; k++) {
      let seq = 0;
      emit("$pageview", page, seq++, { title: TITLES(page) }, null, null, k === 0);
      if (automated) {
        t += r.int(500, 4000);
        page = pageW.draw(r);
        continue;
      }
      if (r.chance(0.25)) {
        t += r.int(800, 3000);
        for (
          const [metric, value, good, poor] of [["LCP", Math.round(r.exp(1900)) + 300, 2500, 4000], [
            "INP",
            Math.round(r.exp(140)) + 20,
            200,
            500,
          ], ["CLS", Math.round(r.exp(0.06) * 1000) / 1000, 0.1, 0.25]] as const
        ) {
          if (metric !== "LCP" && r.chance(0.4)) continue;
          emit("$web_vitals", page, seq++, {
            metric,
            value,
            rating: value <= good ? "good" : value <= poor ? "needs-improvement" : "poor",
          });
        }
      }
      const els = ELEMENTS[page] ?? ELEMENTS.default;
      for (let c = r.chance(0.35) ? r.int(1, 2) : 0; c > 0; c--) {
        t += r.int(2000, 20000);
        const e = r.pick(els);
        const fp = {
          tag: e.tag,
          text: e.text,
          role: e.tag === "button" ? "button" : "link",
          id: null,
          classes: null,
          selector: e.selector,
          ordinal: 0,
        };
        const burst = r.chance(0.04) ? r.int(3, 5) : 1; // rage: the 3rd and later click within a second
        for (let b = 0; b < burst; b++) {
          if (b) t += r.int(80, 300);
          emit("$autocapture", page, seq++, { action: "click", rage_click: b >= 2 }, fp, e.text);
        }
      }
      const signs = page === "/signup" && r.chance(0.35), buys = page === "/checkout" && r.chance(0.45);
      const form = FORMS[page];
      if (form && (signs || buys || r.chance(form.start))) {
        // fields changed one by one (the SDK names a field by its fingerprint, and its form by the fingerprint
        // the submit sends), then maybe the form submitted
        const fields = form.fields.map((x) => ({ name: x.name, type: x.type }));
        // as ingest stores them (lib/enrich/element.ts): a form's and a field's own text is not kept
        const formFp = storedFingerprint({ ...form.form, role: null, classes: null, ordinal: 0 })!;
        const filled = signs || buys ? form.fields.length : r.int(1, form.fields.length);
        for (const x of form.fields.slice(0, filled)) {
          t += r.int(1500, 12000);
          const fp = storedFingerprint({
            tag: "input",
            text: x.label,
            role: null,
            id: x.name,
            classes: null,
            selector: `#${x.name}`,
          })!;
          emit(
            "$autocapture",
            page,
            seq++,
            { action: "change", rage_click: false, form: { fields, fingerprint: formFp } },
            {
              ...fp,
              ordinal: 0,
            },
            elementName(fp),
          );
        }
        if (signs || buys || (filled === form.fields.length && r.chance(form.submit))) {
          t += r.int(500, 3000);
          emit(
            "$autocapture",
            page,
            seq++,
            { action: "submit", rage_click: false, form: { fields } },
            formFp,
            elementName(formFp),
          );
        }
      }
      if (signs) {
        t += r.int(5000, 40000);
        emit("sign_up", page, seq++, { method: r.chance(0.6) ? "email" : "google" });
        this.user[v] ??= `user_${this.anon[v].slice(0, 8)}`;
        emit("$identify", page, seq++, {});
      }
      if (buys) {
        t += r.int(10000, 60000);
        const [plan, amount] = r.pick(
          [["starter", 29], ["pro", 99], ["pro", 99], ["team", 249], ["enterprise", 499]] as const,
        );
        emit("purchase", page, seq++, { plan, amount, currency: "USD" });
      }
      const engaged = Math.round(r.exp(35_000)) + 1500;
      t += engaged + r.int(0, 5000);
      emit("$pageleave", page, seq++, {
        depth_percent: Math.min(100, Math.round(r.exp(45)) + 5),
        engagement_time_ms: engaged,
      });
      t += r.int(300, 2000);
      page = page === "/pricing" && r.chance(0.3)
        ? "/signup"
        : page === "/signup" && this.user[v] && r.chance(0.5)
        ? "/checkout"
        : r.chance(0.18)
        ? "/pricing"
        : pageW.draw(r);
    }
    this.last[v] = Math.max(this.last[v], t);
  }
}
