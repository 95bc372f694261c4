/**
 * What the cohort property tests share (cohort_property_test.ts, mem_cohort_members_test.ts): random events
 * over a week of minutes, and random cohort definitions over them (conditions, counts, first touch, windows,
 * and / or / not), plus moving a definition's windows as a later "now" does.
 */
import fc from "fast-check";
import type { CohortExpr, Filter } from "../../../lib/query/api.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";

export const DAY = 86_400_000;
export const NOW = Date.parse("2026-11-03T12:00:00Z");
export const BASE = NOW - 8 * DAY;

export const eventArb = fc.record({
  slot: fc.integer({ min: 0, max: 7 * 24 * 60 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4", "v5", "v6", "v7"),
  session: fc.constantFrom("s1", "s2"),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up", "purchase"),
  page: fc.constantFrom("/", "/pricing", "/docs/a", "/docs/b"),
  country: fc.constantFrom("DE", "GB", null),
  device: fc.constantFrom("desktop", "mobile"),
  source: fc.constantFrom("(direct)", "Google", "chatgpt.com"),
  channel: fc.constantFrom("Direct", "Organic Search", "AI Assistant"),
  campaign: fc.constantFrom(null, "spring", "autumn"),
  traffic: fc.constantFrom("human", "human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
  plan: fc.constantFrom("pro", "team"),
});
export type Raw = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

export function toEvents(raw: Raw[], shift = 0): StoredEvent[] {
  return raw.map((r, i) => {
    const t = BASE + r.slot * 60_000 + 2 * i + shift;
    return ev({
      received_at: t,
      device_time: new Date(t).toISOString(),
      anonymous_id: r.visitor,
      session_id: `${r.visitor}-${r.session}`,
      event_type: r.type,
      path: r.page,
      screen: r.page,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      device_type: r.device as "desktop",
      source: r.source,
      channel: r.channel,
      utm: r.campaign
        ? { source: "news", medium: "email", campaign: r.campaign, term: null, content: null }
        : null,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      properties: r.type === "purchase" ? { plan: r.plan } : {},
    });
  });
}

// windows end at a day's end or inside it (as a window ending "now" does)
export const windowArb = fc.record({
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 8 }),
  short: fc.constantFrom(0, 0, 3, 11, 20).map((h) => h * 3_600_000),
}).map(({ fromDay, days, short }) => ({
  from: BASE + fromDay * DAY,
  to: BASE + (fromDay + days) * DAY - short,
}));

export const conditionArb: fc.Arbitrary<Filter[]> = fc.constantFrom<Filter[]>(
  [],
  [{ field: "event_type", op: "eq", value: "sign_up" }],
  [{ field: "event_type", op: "eq", value: "purchase" }, { field: "prop:plan", op: "eq", value: "pro" }],
  [{ field: "event_type", op: "eq", value: "$pageview" }, { field: "page", op: "prefix", value: "/docs/" }],
  [{ field: "event_type", op: "eq", value: "$pageview" }, { field: "page", op: "eq", value: "/pricing" }],
  [{ field: "country", op: "in", value: ["DE", "GB"] }],
  [{ field: "country", op: "eq", value: "DE" }],
  [{ field: "device_type", op: "eq", value: "mobile" }],
);
export const firstArb: fc.Arbitrary<Filter> = fc.constantFrom<Filter>(
  { field: "source", op: "eq", value: "Google" },
  { field: "channel", op: "in", value: ["AI Assistant", "Direct"] },
  { field: "utm_campaign", op: "eq", value: "spring" },
  { field: "utm_campaign", op: "neq", value: "spring" },
);
export const leafArb: fc.Arbitrary<CohortExpr> = fc.oneof(
  fc.record({ filters: conditionArb, min: fc.integer({ min: 1, max: 4 }), w: windowArb })
    .map(({ filters, min, w }) => ({ did: { filters, min, ...w } })),
  fc.record({ filter: firstArb, w: windowArb }).map(({ filter, w }) => ({ first: { filter, ...w } })),
);
export const exprArb: fc.Arbitrary<CohortExpr> = fc.letrec<{ expr: CohortExpr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb,
    leafArb,
    fc.array(tie("expr"), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
    fc.array(tie("expr"), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
    tie("expr").map((not) => ({ not })),
  ),
})).expr;

/** The definition with every window ending `ms` later, as when a question's "now" moves on. */
export function later(x: CohortExpr, ms: number): CohortExpr {
  if ("all" in x) return { all: x.all.map((y) => later(y, ms)) };
  if ("any" in x) return { any: x.any.map((y) => later(y, ms)) };
  if ("not" in x) return { not: later(x.not, ms) };
  if ("did" in x) return { did: { ...x.did, to: x.did.to + ms } };
  return { first: { ...x.first, to: x.first.to + ms } };
}
