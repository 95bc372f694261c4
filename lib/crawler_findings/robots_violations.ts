/**
 * robots.txt violations: requests by verified crawlers for pages their token was disallowed from by the
 * robots.txt in force when the request came (robots_history.ts keeps the versions).
 *
 * When a version was in force is known only up to the refresh interval: the site changed its file somewhere
 * between the last fetch that saw the old rules and the first that saw the new ones. And RFC 9309 (2.4) lets
 * a crawler use its cached copy for up to 24 hours. So each version is "possibly in force" from the last
 * sighting of its predecessor until 24 hours after its successor was first seen, and a request counts as a
 * violation only when every version possibly in force at its time disallows it. Versions that allow
 * everything (a 4xx robots.txt) or whose rules are unknown (robots.txt unreachable, no copy kept) never make
 * a violation. Unverifiable and spoofed requests are never judged: who sent them is not known.
 */
import type { Engine, HitScope } from "../query/api.ts";
import type { EnvName } from "../store/records.ts";
import { rulesOf } from "../crawl/robots.ts";
import { listVersions, type RobotsVersion, versionBody } from "../crawl/robots_history.ts";

/** RFC 9309 2.4: crawlers should not use a cached robots.txt for more than 24 hours. */
export const CACHE_GRACE_MS = 24 * 3_600_000;

/** A stretch of time and the versions possibly in force during all of it. */
export interface JudgingWindow {
  from: number;
  to: number;
  versions: number[]; // indexes into the version list
}

/** Cuts time from the first version on into windows with a constant set of possibly-in-force versions. */
export function judgingWindows(versions: RobotsVersion[]): JudgingWindow[] {
  if (versions.length === 0) return [];
  const spans = versions.map((v, i) => ({
    from: i === 0 ? v.since : versions[i - 1].seen_until,
    to: i === versions.length - 1 ? Infinity : versions[i + 1].since + CACHE_GRACE_MS,
  }));
  const cuts = [...new Set(spans.flatMap((s) => [s.from, s.to]))].sort((a, b) => a - b);
  const out: JudgingWindow[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [from, to] = [cuts[k], cuts[k + 1]];
    const inForce = spans.flatMap((s, i) => (s.from <= from && s.to >= to ? [i] : []));
    if (inForce.length) out.push({ from, to, versions: inForce });
  }
  return out;
}

export interface CrawlerViolations {
  crawler: string;
  vendor: string | null;
  category: string;
  requests: number;
  pages: string[];
  first_seen_at: number;
  last_seen_at: number;
}

export interface PageViolations {
  page: string;
  requests: number;
  crawlers: string[];
}

export interface ViolationFindings {
  versions: RobotsVersion[];
  /** the first fetch: requests before it are not judged */
  judged_from: number | null;
  crawlers: CrawlerViolations[];
  pages: PageViolations[];
  /** requests to pages in the period that were not judged, and why */
  not_judged: { before_first_fetch: number; unverifiable_or_pending: number; spoofed: number };
}

export interface ViolationQuery {
  engine: Engine;
  kv: Deno.Kv;
  scope: HitScope & { touchpoint: string; env: EnvName };
  host: string;
  crawler?: string;
}

/** The violations in the scope's period, per crawler and per page. */
export async function robotsViolations(q: ViolationQuery): Promise<ViolationFindings> {
  const { scope } = q;
  const versions = await listVersions(q.kv, scope.org, scope.touchpoint, scope.env);
  const rules = await Promise.all(versions.map(async (v) => {
    const body = await versionBody(q.kv, scope.org, scope.touchpoint, scope.env, v);
    return body === null ? null : rulesOf(body, q.host);
  }));
  const disallows = (i: number, token: string, page: string) =>
    versions[i].state === "rules" && rules[i] !== null && rules[i]!(token, page);
  const oneCrawler = q.crawler ? [{ field: "crawler" as const, op: "eq" as const, value: q.crawler }] : [];

  const byCrawler = new Map<string, CrawlerViolations & { pageSet: Set<string> }>();
  const byPage = new Map<string, { requests: number; crawlers: Set<string> }>();
  const windows = judgingWindows(versions);
  await Promise.all(windows.map(async (w) => {
    const from = Math.max(w.from, scope.from), to = Math.min(w.to, scope.to);
    if (from >= to) return;
    const res = await q.engine.hitsAggregate({
      ...scope,
      from,
      to,
      filters: [{ field: "verification", op: "eq", value: "verified" }, ...oneCrawler],
    }, {
      metrics: ["requests", "first_seen_at", "last_seen_at"],
      breakdown: ["crawler", "vendor", "category", "page", "site_file"],
    });
    for (const row of res.rows) {
      if (row.key.site_file !== null) continue; // robots.txt, llms.txt and sitemaps are never disallowed here
      const token = String(row.key.crawler), page = String(row.key.page);
      if (!w.versions.every((i) => disallows(i, token, page))) continue;
      const n = row.metrics.requests ?? 0;
      const c = byCrawler.get(token) ?? {
        crawler: token,
        vendor: (row.key.vendor as string | null) ?? null,
        category: String(row.key.category),
        requests: 0,
        pages: [],
        pageSet: new Set<string>(),
        first_seen_at: Infinity,
        last_seen_at: -Infinity,
      };
      c.requests += n;
      c.pageSet.add(page);
      c.first_seen_at = Math.min(c.first_seen_at, row.metrics.first_seen_at ?? Infinity);
      c.last_seen_at = Math.max(c.last_seen_at, row.metrics.last_seen_at ?? -Infinity);
      byCrawler.set(token, c);
      const p = byPage.get(page) ?? { requests: 0, crawlers: new Set<string>() };
      p.requests += n;
      p.crawlers.add(token);
      byPage.set(page, p);
    }
  }));

  // What was not judged, so the answer can say so.
  const judgedFrom = versions[0]?.since ?? null;
  const all = await q.engine.hitsAggregate({ ...scope, filters: oneCrawler }, {
    metrics: ["requests"],
    breakdown: ["verification", "site_file"],
  });
  const before = judgedFrom === null || judgedFrom > scope.from
    ? await q.engine.hitsAggregate({
      ...scope,
      to: judgedFrom === null ? scope.to : Math.min(judgedFrom, scope.to),
      filters: [{ field: "verification", op: "eq", value: "verified" }, ...oneCrawler],
    }, { metrics: ["requests"], breakdown: ["site_file"] })
    : null;
  const count = (rows: typeof all.rows, keep: (v: unknown) => boolean) =>
    rows.filter((r) => r.key.site_file === null && keep(r.key.verification))
      .reduce((s, r) => s + (r.metrics.requests ?? 0), 0);

  const crawlers = [...byCrawler.values()].map(({ pageSet, ...c }) => ({ ...c, pages: [...pageSet].sort() }))
    .sort((a, b) => b.requests - a.requests || a.crawler.localeCompare(b.crawler));
  const pages = [...byPage.entries()].map(([page, p]) => ({
    page,
    requests: p.requests,
    crawlers: [...p.crawlers].sort(),
  })).sort((a, b) => b.requests - a.requests || a.page.localeCompare(b.page));
  return {
    versions,
    judged_from: judgedFrom,
    crawlers,
    pages,
    not_judged: {
      before_first_fetch: before ? count(before.rows, () => true) : 0,
      unverifiable_or_pending: count(all.rows, (v) => v === "unverifiable" || v === "pending"),
      spoofed: count(all.rows, (v) => v === "spoofed"),
    },
  };
}
