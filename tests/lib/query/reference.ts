/**
 * The reference semantics of every engine question, computed the plain way over stored records.
 * Slow and obvious on purpose: the columnar engine (lib/query/) must give the same answers (see the
 * property tests), and the first engine version answered with it. It shares with the engine only the
 * definitions of a filter (`matches`), of row order (`sortRows`), of a value as a string, of an engaged
 * session, of sequence gaps and of time buckets.
 */
import type { StoredEvent, StoredHit, Verification } from "../../../lib/store/records.ts";
import { bucketer, bucketsBetween } from "../../../lib/time/buckets.ts";
import { isEngagedSession, PASSIVE_EVENTS } from "../../../lib/query/scan/engaged.ts";
import { matches } from "../../../lib/query/scan/filters.ts";
import { crawlerCategory, valueString } from "../../../lib/query/columns/values.ts";
import { sortRows } from "../../../lib/query/order.ts";
import { gapsInBatch } from "../../../lib/enrich/sequence.ts";
import type {
  AggregateOptions,
  AggregateResult,
  EventField,
  Filter,
  HitAggregateOptions,
  HitAggregateResult,
  HitField,
  HitMetric,
  HitScope,
  KeyValue,
  Metric,
  Row,
  Scope,
} from "../../../lib/query/types.ts";
import type {
  FunnelOptions,
  FunnelResult,
  FunnelStep,
  PathsOptions,
  PathsResult,
  RetentionOptions,
  RetentionResult,
  SessionSeq,
  SessionsOptions,
  StepDef,
} from "../../../lib/query/sequence_types.ts";

export function fieldOf(e: StoredEvent, f: EventField): string | null {
  switch (f) {
    case "page":
      return e.path;
    case "host":
      return e.host;
    case "country":
      return e.geo.country;
    case "city":
      return e.geo.city;
    case "device_type":
      return e.device_type;
    case "browser":
      return e.browser;
    case "os":
      return e.os;
    case "platform":
      return e.platform;
    case "source":
      return e.source;
    case "channel":
      return e.channel;
    case "referrer_host":
      return e.referrer_host;
    case "utm_source":
      return e.utm?.source ?? null;
    case "utm_medium":
      return e.utm?.medium ?? null;
    case "utm_campaign":
      return e.utm?.campaign ?? null;
    case "utm_term":
      return e.utm?.term ?? null;
    case "utm_content":
      return e.utm?.content ?? null;
    case "event_type":
      return e.event_type;
    case "element":
      return e.element;
    case "crawler":
      return e.crawler;
    case "crawler_category":
      return e.crawler === null ? null : crawlerCategory(e.crawler);
    case "traffic":
      return e.traffic;
    case "touchpoint":
      return e.touchpoint;
    default:
      if (f.startsWith("prop:")) return valueString(e.properties[f.slice(5)]);
      return null; // session-level fields are resolved by the caller
  }
}

/** Order of events inside a session: receive time, then device time, then sequence number. */
export function orderCmp(a: StoredEvent, b: StoredEvent): number {
  return a.received_at - b.received_at ||
    (Date.parse(a.device_time) || 0) - (Date.parse(b.device_time) || 0) ||
    a.sequence_no - b.sequence_no;
}

export const sessionKey = (e: StoredEvent) => `${e.anonymous_id}\u0000${e.session_id}`;

export function inScope(e: StoredEvent, s: Scope): boolean {
  return e.received_at >= s.from && e.received_at < s.to &&
    (!s.touchpoint || e.touchpoint === s.touchpoint) &&
    (s.traffic ?? ["human"]).includes(e.traffic);
}

interface SessionInfo {
  events: StoredEvent[]; // ordered
  pv: number;
  first: number;
  last: number;
  entry: StoredEvent | null;
  exit: StoredEvent | null;
  /** had an event that is not passive (see engaged.ts) */
  interacted: boolean;
  /** dropped events: sequence gaps over all its human events, counted as ingest counts one batch */
  dropped: number;
}

export function sessionInfos(scoped: StoredEvent[]): Map<string, SessionInfo> {
  const out = new Map<string, SessionInfo>();
  for (const e of scoped) {
    const k = sessionKey(e);
    let s = out.get(k);
    if (!s) {
      out.set(
        k,
        s = {
          events: [],
          pv: 0,
          first: Infinity,
          last: -Infinity,
          entry: null,
          exit: null,
          interacted: false,
          dropped: 0,
        },
      );
    }
    s.events.push(e);
  }
  for (const s of out.values()) {
    s.events.sort(orderCmp);
    s.dropped = gapsInBatch(s.events.filter((e) => e.traffic === "human")).reduce((a, b) => a + b, 0);
    for (const e of s.events) {
      s.first = Math.min(s.first, e.received_at);
      s.last = Math.max(s.last, e.received_at);
      if (!PASSIVE_EVENTS.has(e.event_type)) s.interacted = true;
      if (e.event_type === "$pageview") {
        s.pv++;
        s.entry ??= e;
        s.exit = e;
      }
    }
  }
  return out;
}

function rowField(e: StoredEvent, f: EventField, sessions: Map<string, SessionInfo>): string | null {
  if (f === "entry_page") return sessions.get(sessionKey(e))?.entry?.path ?? null;
  if (f === "exit_page") return sessions.get(sessionKey(e))?.exit?.path ?? null;
  return fieldOf(e, f);
}

const eventMatches = (e: StoredEvent, filters: Filter[] | undefined, sessions: Map<string, SessionInfo>) =>
  (filters ?? []).every((f) => matches(rowField(e, f.field, sessions), f));

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
const div1000 = (x: number | null) => (x === null ? null : x / 1000);

function metricsOf(
  group: StoredEvent[],
  sessions: Map<string, SessionInfo>,
  converted: Set<string>,
  metrics: Metric[],
) {
  const visitors = new Set(group.filter((e) => e.traffic === "human").map((e) => e.anonymous_id));
  const sess = new Set(group.map(sessionKey));
  const infos = [...sess].map((k) => sessions.get(k)!);
  const pageviews = group.filter((e) => e.event_type === "$pageview");
  const leaves = group.filter((e) => e.event_type === "$pageleave");
  const exits = pageviews.filter((e) => sessions.get(sessionKey(e))!.exit === e).length;
  const entries = pageviews.filter((e) => sessions.get(sessionKey(e))!.entry === e).length;
  const conv = [...visitors].filter((v) => converted.has(v)).length;
  const engaged = new Set(
    group.filter((e) => {
      const s = sessions.get(sessionKey(e))!;
      return e.traffic === "human" && isEngagedSession(s.last - s.first, s.pv, s.interacted);
    }).map((e) => e.anonymous_id),
  );
  const viewers = new Set(pageviews.filter((e) => e.traffic === "human").map((e) => e.anonymous_id));
  // the visitors behind both page-leave means: a human page-leave giving both figures; counted up to 5
  const reporters = new Set(
    leaves.filter((e) =>
      e.traffic === "human" && num(e.properties.engagement_time_ms) !== null &&
      num(e.properties.depth_percent) !== null
    ).map((e) => e.anonymous_id),
  );
  const all: Record<Metric, number | null> = {
    visitors: visitors.size,
    viewers: viewers.size,
    engaged_visitors: engaged.size,
    sessions: sess.size,
    pageviews: pageviews.length,
    events: group.length,
    views_per_session: ratio(pageviews.length, sess.size),
    bounce_rate: ratio(infos.filter((s) => s.pv <= 1).length, sess.size),
    session_duration_s: div1000(mean(infos.map((s) => s.last - s.first))),
    engagement_time_s: div1000(
      mean(leaves.map((e) => num(e.properties.engagement_time_ms)).filter((x) => x !== null) as number[]),
    ),
    scroll_depth_percent: mean(
      leaves.map((e) => num(e.properties.depth_percent)).filter((x) => x !== null) as number[],
    ),
    reporters: Math.min(5, reporters.size),
    exits,
    entries,
    exit_rate: ratio(exits, pageviews.length),
    rage_clicks:
      group.filter((e) => e.event_type === "$autocapture" && e.properties.rage_click === true).length,
    conversions: conv,
    conversion_rate: ratio(conv, visitors.size),
    dropped_events: infos.reduce((n, s) => n + s.dropped, 0),
  };
  return Object.fromEntries(metrics.map((m) => [m, all[m]]));
}

export function naiveAggregate(all: StoredEvent[], scope: Scope, opts: AggregateOptions): AggregateResult {
  const scoped = all.filter((e) => inScope(e, scope));
  const sessions = sessionInfos(scoped);
  const matched = scoped.filter((e) => eventMatches(e, scope.filters, sessions));
  const converted = new Set<string>();
  if (opts.goal) {
    for (const e of scoped) {
      if (e.event_type === opts.goal.event_type && eventMatches(e, opts.goal.filters, sessions)) {
        converted.add(e.anonymous_id);
      }
    }
  }
  const bucketOf = opts.bucket ? bucketer(opts.bucket, scope.timezone) : null;
  const groups = new Map<string, { key: Record<string, KeyValue>; events: StoredEvent[] }>();
  for (const e of matched) {
    const key: Record<string, KeyValue> = {};
    for (const f of opts.breakdown ?? []) key[f] = rowField(e, f, sessions);
    if (bucketOf) key.bucket = bucketOf(e.received_at);
    const id = JSON.stringify(key);
    let g = groups.get(id);
    if (!g) groups.set(id, g = { key, events: [] });
    g.events.push(e);
  }
  const rows: Row[] = [...groups.values()].map((g) => ({
    key: g.key,
    metrics: metricsOf(g.events, sessions, converted, opts.metrics),
  }));
  const by = opts.sort?.by ?? opts.metrics[0];
  sortRows(rows, by, opts.sort?.desc ?? (by !== "key"));
  const offset = opts.offset ?? 0;
  return {
    totals: metricsOf(matched, sessions, converted, opts.metrics),
    rows: rows.slice(offset, opts.limit === undefined ? undefined : offset + opts.limit),
    total_rows: rows.length,
  };
}

export function hitField(h: StoredHit, f: HitField, verification: Verification): string | null {
  switch (f) {
    case "page":
      return h.path;
    case "host":
      return h.host;
    case "country":
      return h.geo.country;
    case "crawler":
      return h.crawler;
    case "vendor":
      return h.vendor;
    case "category":
      return h.category;
    case "verification":
      return verification;
    case "status":
      return h.status === null ? null : String(h.status);
    case "status_class":
      return h.status === null ? "unknown" : `${Math.floor(h.status / 100)}xx`;
    case "method":
      return h.method;
    case "site_file":
      return h.site_file;
    case "via":
      return h.via;
    case "crawled":
      return String(h.crawled);
    case "touchpoint":
      return h.touchpoint;
  }
}

export function naiveHitsAggregate(
  hits: StoredHit[],
  verifications: Map<string, Verification>,
  scope: HitScope,
  opts: HitAggregateOptions,
): HitAggregateResult {
  const ver = (h: StoredHit) => verifications.get(h.id) ?? h.verification;
  const matched = hits.filter((h) =>
    h.timestamp >= scope.from && h.timestamp < scope.to &&
    (!scope.touchpoint || h.touchpoint === scope.touchpoint) &&
    (scope.filters ?? []).every((f) => matches(hitField(h, f.field, ver(h)), f))
  );
  const bucketOf = opts.bucket ? bucketer(opts.bucket, scope.timezone) : null;
  const metricsOf = (g: StoredHit[]) => {
    const crawled = g.filter((h) => h.crawled);
    const pages = crawled.filter((h) => h.site_file === null);
    const all: Record<HitMetric, number | null> = {
      requests: g.length,
      crawled_requests: pages.length,
      pages: new Set(pages.map((h) => h.path)).size,
      last_crawl_at: crawled.length ? Math.max(...crawled.map((h) => h.timestamp)) : null,
      first_seen_at: g.length ? Math.min(...g.map((h) => h.timestamp)) : null,
      last_seen_at: g.length ? Math.max(...g.map((h) => h.timestamp)) : null,
    };
    return Object.fromEntries(opts.metrics.map((m) => [m, all[m]]));
  };
  const groups = new Map<string, { key: Record<string, KeyValue>; hits: StoredHit[] }>();
  for (const h of matched) {
    const key: Record<string, KeyValue> = {};
    for (const f of opts.breakdown ?? []) key[f] = hitField(h, f, ver(h));
    if (bucketOf) key.bucket = bucketOf(h.timestamp);
    const id = JSON.stringify(key);
    let g = groups.get(id);
    if (!g) groups.set(id, g = { key, hits: [] });
    g.hits.push(h);
  }
  const rows: Row<HitMetric>[] = [...groups.values()].map((g) => ({
    key: g.key,
    metrics: metricsOf(g.hits),
  }));
  const by = opts.sort?.by ?? opts.metrics[0];
  sortRows(rows, by, opts.sort?.desc ?? (by !== "key"));
  const offset = opts.offset ?? 0;
  return {
    totals: metricsOf(matched),
    rows: rows.slice(offset, opts.limit === undefined ? undefined : offset + opts.limit),
    total_rows: rows.length,
  };
}

/**
 * Sessions in scope, newest first (by start, then first event order); with filters and `matchFilters`,
 * only sessions with a matching event. Visitor and session numbers count in output order.
 */
export function naiveSessions(all: StoredEvent[], scope: Scope, opts: SessionsOptions = {}): SessionSeq[] {
  const scoped = all.filter((e) => inScope(e, scope));
  const infos = sessionInfos(scoped);
  const matchFilters = opts.matchFilters ?? true;
  const list = [...infos.values()].filter((s) =>
    !matchFilters || s.events.some((e) => eventMatches(e, scope.filters, infos))
  );
  list.sort((a, b) => b.first - a.first || orderCmp(b.events[0], a.events[0]));
  const visitors = new Map<string, number>();
  return list.slice(0, opts.limit).map((s, i) => {
    const f = s.events[0];
    if (!visitors.has(f.anonymous_id)) visitors.set(f.anonymous_id, visitors.size);
    return {
      visitor: visitors.get(f.anonymous_id)!,
      session: i,
      start: s.first,
      end: s.last,
      source: f.source,
      channel: f.channel,
      country: f.geo.country,
      device_type: f.device_type,
      steps: s.events.map((e) => ({
        t: e.received_at,
        event_type: e.event_type,
        page: e.path,
        element: e.element,
      })),
    };
  });
}

const stepMatches = (e: StoredEvent, d: StepDef, infos: Map<string, SessionInfo>) =>
  e.event_type === d.event_type && eventMatches(e, d.filters, infos);

/** The middle value; the mean of the two middle ones for an even count. */
function middle(xs: number[]): number | null {
  if (!xs.length) return null;
  const a = [...xs].sort((x, y) => x - y);
  const h = Math.floor(a.length / 2);
  return a.length % 2 === 1 ? a[h] : (a[h - 1] + a[h]) / 2;
}

function funnelSteps(reached: number[], gaps: number[][]): FunnelStep[] {
  return reached.map((count, i) => ({
    index: i + 1,
    count,
    conversion_from_start: ratio(count, reached[0]),
    conversion_from_previous: i === 0 ? null : ratio(count, reached[i - 1]),
    dropped: i === 0 ? 0 : reached[i - 1] - count,
    median_ms_from_previous: i === 0 ? null : middle(gaps[i]),
  }));
}

export function naiveFunnel(all: StoredEvent[], scope: Scope, opts: FunnelOptions): FunnelResult {
  const scoped = all.filter((e) => inScope(e, scope));
  const infos = sessionInfos(scoped);
  const bySession = opts.by === "session";
  const units = new Map<string, StoredEvent[]>();
  for (const e of scoped) {
    if (!bySession && e.traffic !== "human") continue;
    const k = bySession ? sessionKey(e) : e.anonymous_id;
    let u = units.get(k);
    if (!u) units.set(k, u = []);
    u.push(e);
  }
  const n = opts.steps.length;
  const tally = () => ({
    reached: new Array(n).fill(0) as number[],
    gaps: opts.steps.map(() => [] as number[]),
  });
  const total = tally();
  const groups = new Map<string | null, ReturnType<typeof tally>>();
  for (const evs of units.values()) {
    evs.sort(orderCmp);
    // every start, each matched greedily; the furthest-reaching attempt counts, the earliest among equals
    let best: number[] = [], bestStart = -1;
    for (let s = 0; s < evs.length; s++) {
      if (!stepMatches(evs[s], opts.steps[0], infos)) continue;
      const times = [evs[s].received_at];
      for (let i = s + 1; i < evs.length && times.length < n; i++) {
        if (opts.window_ms !== undefined && evs[i].received_at - evs[s].received_at > opts.window_ms) break;
        if (stepMatches(evs[i], opts.steps[times.length], infos)) times.push(evs[i].received_at);
      }
      if (times.length > best.length) {
        best = times;
        bestStart = s;
      }
    }
    if (!best.length) continue;
    const add = (t: ReturnType<typeof tally>) => {
      best.forEach((x, i) => {
        t.reached[i]++;
        if (i > 0) t.gaps[i].push(x - best[i - 1]);
      });
    };
    add(total);
    if (opts.split) {
      const v = fieldOf(evs[bestStart], opts.split.field);
      if (!groups.has(v)) groups.set(v, tally());
      add(groups.get(v)!);
    }
  }
  const out: FunnelResult = {
    unit: bySession ? "session" : "visitor",
    steps: funnelSteps(total.reached, total.gaps),
  };
  if (opts.split) {
    // most units at step 1 first; ties by value, a missing value (null) last
    const ranked = [...groups].sort((x, y) =>
      y[1].reached[0] - x[1].reached[0] ||
      (x[0] === null ? 1 : 0) - (y[0] === null ? 1 : 0) ||
      (String(x[0]) < String(y[0]) ? -1 : String(x[0]) > String(y[0]) ? 1 : 0)
    );
    const top = opts.split.top;
    out.splits = ranked.slice(0, top).map(([value, t]) => ({
      value,
      other: false,
      steps: funnelSteps(t.reached, t.gaps),
    }));
    if (ranked.length > top) {
      const rest = tally();
      for (const [, t] of ranked.slice(top)) {
        t.reached.forEach((c, i) => rest.reached[i] += c);
        t.gaps.forEach((g, i) => rest.gaps[i].push(...g));
      }
      out.splits.push({ value: null, other: true, steps: funnelSteps(rest.reached, rest.gaps) });
    }
    out.split_values = groups.size;
  }
  return out;
}

export function naivePaths(all: StoredEvent[], scope: Scope, opts: PathsOptions): PathsResult {
  const scoped = all.filter((e) => inScope(e, scope));
  const infos = sessionInfos(scoped);
  const depth = opts.depth ?? 3;
  const mode = opts.step ?? "page";
  const label = (e: StoredEvent): string | null => {
    if (mode === "event") return e.event_type;
    if (e.event_type === "$pageview") return e.path;
    if (mode === "page_or_event" && !e.event_type.startsWith("$")) return e.event_type;
    return null;
  };
  type Tally = { sessions: number; visitors: Set<string> };
  const note = (m: Map<string, Tally>, k: string, visitor: string) => {
    if (!m.has(k)) m.set(k, { sessions: 0, visitors: new Set() });
    m.get(k)!.sessions++;
    m.get(k)!.visitors.add(visitor);
  };
  const counts = Array.from({ length: depth }, () => new Map<string, Tally>());
  const seqs = new Map<string, Tally>();
  let sessions = 0;
  const visitors = new Set<string>();
  for (const s of infos.values()) {
    const at = s.events.findIndex((e) => stepMatches(e, opts.anchor, infos));
    if (at < 0) continue;
    sessions++;
    visitors.add(s.events[at].anonymous_id);
    const side = opts.direction === "after" ? s.events.slice(at + 1) : s.events.slice(0, at).reverse();
    const labels: string[] = [];
    let prev = label(s.events[at]);
    for (const e of side) {
      const l = label(e);
      if (l === null || l === prev) continue; // repeated views of one page are one step
      labels.push(l);
      prev = l;
      if (labels.length === depth) break;
    }
    if (labels.length < depth) labels.push("(end)");
    labels.forEach((l, i) => note(counts[i], l, s.events[at].anonymous_id));
    note(seqs, JSON.stringify(labels), s.events[at].anonymous_id);
  }
  const byVisitors = opts.rank === "visitors";
  const top = (m: Map<string, Tally>) =>
    [...m].map(([value, t]) => ({ value, sessions: t.sessions, visitors: t.visitors.size })).sort((a, b) =>
      (byVisitors ? b.visitors - a.visitors : b.sessions - a.sessions) ||
      (byVisitors ? b.sessions - a.sessions : b.visitors - a.visitors) ||
      (a.value < b.value ? -1 : 1)
    );
  const limit = opts.limit ?? 25;
  return {
    sessions,
    visitors: visitors.size,
    steps: counts.map((m, i) => ({ depth: i + 1, rows: top(m).slice(0, limit), total_rows: m.size })),
    sequences: top(seqs).slice(0, limit).map((x) => ({
      steps: JSON.parse(x.value) as string[],
      sessions: x.sessions,
      visitors: x.visitors,
    })),
    total_sequences: seqs.size,
  };
}

export function naiveRetention(all: StoredEvent[], scope: Scope, opts: RetentionOptions): RetentionResult {
  // a session's entry and exit pages as the scope's traffic sees them (as for funnels); its people are counted
  const inTraffic = all.filter((e) => inScope(e, scope));
  const infos = sessionInfos(inTraffic);
  const scoped = inTraffic.filter((e) => e.traffic === "human");
  const periods = bucketsBetween(scope.from, scope.to, opts.period, scope.timezone);
  const index = new Map(periods.map((p, i) => [p.label, i]));
  const bucketOf = bucketer(opts.period, scope.timezone);
  const active = scoped.filter((e) => eventMatches(e, scope.filters, infos));
  const does = (e: StoredEvent, step: StepDef | undefined) => !step || stepMatches(e, step, infos);
  // a visitor enters at their first event doing the cohort step (any event without one)
  const entered = new Map<string, number>();
  for (const e of active) {
    if (!does(e, opts.cohort)) continue;
    entered.set(e.anonymous_id, Math.min(entered.get(e.anonymous_id) ?? Infinity, e.received_at));
  }
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(opts.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (const [visitor, at] of entered) {
    const first = index.get(bucketOf(at))!;
    cohorts[first].visitors++;
    const returned = new Set(
      active.filter((e) => e.anonymous_id === visitor && e.received_at >= at && does(e, opts.returning))
        .map((e) => index.get(bucketOf(e.received_at))! - first),
    );
    for (const d of returned) if (d < cohorts[first].counts.length) cohorts[first].counts[d]++;
  }
  return { cohorts };
}
