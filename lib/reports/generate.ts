/**
 * Generating one report: claim its (touchpoint, kind, period) key, ask the read tools what an assistant would
 * ask (through `ask`, which runs them on the tools pipeline), turn the answers into findings by the documented
 * thresholds, write the summary, and store the report in place of the claim. Asking in parallel keeps a
 * weekly report of a large site within seconds.
 */
import type { Deps } from "../deps.ts";
import type { EnvName, Org, Touchpoint } from "../store/records.ts";
import { listApps } from "../feedback/store.ts";
import type { Scope } from "../answers/schema.ts";
import { periodText, type ReportPeriod } from "./periods.ts";
import { formatDate, localDateOf } from "../time/dates.ts";
import { boundReport } from "./bound.ts";
import { claimReport, completeReport, getReport, releaseClaim, reportId } from "./store.ts";
import type { Finding, Report, ReportCharts, ReviewFigures } from "./types.ts";
import type { Ask, FindingContext, Json } from "./findings/common.ts";
import { driverFindings, headlineFindings, pageFindings, sourceFindings } from "./findings/behavior.ts";
import { crawlerAccessFindings } from "./findings/crawler_access.ts";
import { funnelFindings } from "./findings/funnels.ts";
import { listSaved } from "../saved/store.ts";
import { crawlerFindings, notCrawledFindings } from "./findings/crawlers.ts";
import { vitalsFindings } from "./findings/vitals.ts";
import { themeFindings, versionFindings } from "./findings/reviews.ts";
import { headline, sectionRank, summarize } from "./summary.ts";
import { shownPath } from "../url_path.ts";

export interface ReportRequest {
  org: Org;
  env: EnvName;
  touchpoint: Touchpoint;
  period: ReportPeriod;
  trigger: Report["trigger"];
  ask: Ask;
}

/**
 * "busy": no report to show now, another instance is making it; "not_due": none is made, as the period ended
 * before the website or app was added and it has no data in it (`reason`, in words).
 */
export type Generated =
  | { state: "created"; report: Report }
  | { state: "exists"; report: Report }
  | { state: "busy" }
  | { state: "not_due"; reason: string };

/** Most findings a report holds (answer rule 2: at most 25 items). */
export const MAX_FINDINGS = 25;

export async function generateReport(deps: Deps, r: ReportRequest): Promise<Generated> {
  const id = reportId(r.period.kind, r.period.key, r.touchpoint.id);
  if (endedBefore(r)) {
    const stored = await getReport(deps.kv, r.org.id, r.env, id);
    if (stored) return { state: "exists", report: stored };
    if (!(await hasData(deps, r))) {
      const added = periodText(localDay(r.touchpoint.created_at, r.org.timezone)!);
      const when = periodText(r.period.period);
      return {
        state: "not_due",
        reason: `${r.touchpoint.name} was added on ${added}, after ${when}, and has no data in it`,
      };
    }
  }
  const claimed = await claimReport(deps.kv, r.org.id, r.env, id, deps.clock.now());
  if (claimed.state === "complete") return { state: "exists", report: claimed.report };
  if (claimed.state === "busy") return { state: "busy" };
  try {
    const report = boundReport(await buildReport(deps, r, id));
    if (await completeReport(deps.kv, report, claimed.versionstamp)) return { state: "created", report };
  } catch (err) {
    await releaseClaim(deps.kv, r.org.id, r.env, id, claimed.versionstamp);
    throw err;
  }
  // our claim lapsed and another instance finished first: theirs stands
  const stored = await getReport(deps.kv, r.org.id, r.env, id);
  return stored ? { state: "exists", report: stored } : { state: "busy" };
}

/** The touchpoint's creation day in the organization's timezone ("2026-11-29"); null when unknown. */
function localDay(createdAt: string | undefined, tz: string): string | null {
  const at = Date.parse(createdAt ?? "");
  return Number.isFinite(at) ? formatDate(localDateOf(at, tz)) : null;
}

/**
 * Whether the period ended before the website or app was added (its last local day before the day it was
 * created). A period its creation falls inside is reported as any other.
 */
function endedBefore(r: ReportRequest): boolean {
  const created = localDay(r.touchpoint.created_at, r.org.timezone);
  return created !== null && r.period.to < created;
}

/**
 * Whether a touchpoint has data in the period: visitors, crawler requests (a website) or app-store reviews
 * (an app). A period that ended before the touchpoint was added is reported only then: its first data, not
 * its creation, is where its reports start (the demo's, and an imported history's, data go back before it).
 * A question that fails counts as data: the report is then made (or fails) as any other.
 */
async function hasData(deps: Deps, r: ReportRequest): Promise<boolean> {
  const cur = { touchpoint: r.touchpoint.id, period: r.period.period };
  const positive = (x: unknown) => typeof x === "number" ? x > 0 : x !== null && x !== undefined;
  const asked = (tool: string, input: Record<string, unknown>, seen: (a: Json) => boolean) =>
    r.ask(tool, input).then(seen, () => true);
  if (await asked("behavior_overview", cur, (a) => positive(a.visitors?.value))) return true;
  if (r.touchpoint.kind === "website") {
    return await asked("behavior_crawl_coverage", cur, (a) => ((a.crawlers ?? []) as Json[]).length > 0);
  }
  const apps = (await listApps(deps.kv, r.org.id)).filter((a) => a.touchpoint === r.touchpoint.id);
  for (const a of apps) {
    const reviewed = await asked(
      "feedback_summary",
      { app: a.id, period: r.period.period },
      (s) => ((s.apps ?? []) as Json[]).some((x) => positive(x.reviews?.value)),
    );
    if (reviewed) return true;
  }
  return false;
}

async function buildReport(deps: Deps, r: ReportRequest, id: string): Promise<Report> {
  const c: FindingContext = { touchpoint: r.touchpoint, period: r.period, ask: r.ask };
  const notes: string[] = [];
  const tp = r.touchpoint.id;
  const cur = { touchpoint: tp, period: r.period.period };
  const prev = { touchpoint: tp, period: r.period.previous };
  /** A tool that fails leaves its findings out and says so in the report's notes; the rest still stand. */
  const tryAsk = (tool: string, input: Record<string, unknown>): Promise<Json | null> =>
    r.ask(tool, input).catch((err) => {
      notes.push(
        `${tool} could not be asked (${
          String(err?.message ?? err).slice(0, 200)
        }); its findings are left out`,
      );
      return null;
    });
  const website = r.touchpoint.kind === "website";
  const apps = website ? [] : (await listApps(deps.kv, r.org.id)).filter((a) => a.touchpoint === tp);
  const [
    overview,
    trendNow,
    trendBefore,
    pagesNow,
    pagesBefore,
    sources,
    covNow,
    covBefore,
    perfNow,
    access,
  ] = await Promise.all([
    r.ask("behavior_overview", cur), // the report's scope: without it there is no report
    tryAsk("behavior_trends", { ...cur, metric: "visitors", interval: "day" }),
    tryAsk("behavior_trends", { ...prev, metric: "visitors", interval: "day" }),
    tryAsk("behavior_pages", { ...cur, limit: 25 }),
    tryAsk("behavior_pages", { ...prev, limit: 25 }),
    tryAsk("behavior_sources", { ...cur, limit: 25 }),
    website ? tryAsk("behavior_crawl_coverage", cur) : null,
    website ? tryAsk("behavior_crawl_coverage", prev) : null,
    tryAsk("behavior_performance", { ...cur, by: "page" }),
    website ? tryAsk("behavior_crawler_access", cur) : null,
  ]);
  const reviews = await Promise.all(apps.map(async (a) => ({
    id: a.id,
    themes: await tryAsk("feedback_themes", { app: a.id, period: r.period.period, rising_first: true }),
    summary: await tryAsk("feedback_summary", { app: a.id, period: r.period.period }),
  })));

  const head = headlineFindings(c, overview);
  const found: Finding[][] = [head];
  const later: Promise<Finding[]>[] = [driverFindings(c, head)];
  if (access) found.push(crawlerAccessFindings(c, access));
  later.push(listSaved(deps.kv, r.org.id, "insight").then((saved) => funnelFindings(c, saved)));
  // With no visitors (or no crawler requests) at all the period before, everything would be "new": the
  // summary says there is nothing to compare with instead.
  const visitorsBefore = (overview.visitors?.previous ?? 0) > 0;
  const crawlersBefore = (covBefore?.crawlers?.length ?? 0) > 0;
  if (!visitorsBefore && (overview.visitors?.value ?? 0) > 0) {
    notes.push("no visitors the period before: pages and sources are not compared");
  }
  if (!crawlersBefore && (covNow?.crawlers?.length ?? 0) > 0) {
    notes.push("no crawler requests the period before: crawlers are not compared");
  }
  if (pagesNow && pagesBefore && visitorsBefore) later.push(pageFindings(c, pagesNow, pagesBefore));
  if (sources && visitorsBefore) found.push(sourceFindings(c, sources));
  if (covNow && covBefore) {
    if (crawlersBefore) later.push(crawlerFindings(c, covNow, covBefore));
    found.push(notCrawledFindings(c, covNow));
  }
  if (perfNow) {
    later.push(vitalsFindings(c, perfNow, () => tryAsk("behavior_performance", { ...prev, by: "page" })));
  }
  for (const a of reviews) {
    if (a.themes) found.push(themeFindings(c, a.themes, a.id));
    if (a.summary) found.push(versionFindings(c, a.summary, a.id));
  }
  found.push(...await Promise.all(later));
  const findings = found.flat()
    .sort((a, b) => sectionRank(a.kind) - sectionRank(b.kind) || b.weight - a.weight)
    .slice(0, MAX_FINDINGS);

  const reviewed = reviewFigures(reviews.map((a) => a.summary));
  const drawn = charts(trendNow, trendBefore, pagesNow, pagesBefore);
  // an app that sends no events: its report is its reviews, not empty web charts
  const sendsEvents = (overview.visitors?.value ?? 0) > 0 || (overview.visitors?.previous ?? 0) > 0;
  if (!website) Object.assign(drawn, appCharts(reviews.map((a) => a.summary), sendsEvents));
  return {
    id,
    org: r.org.id,
    env: r.env,
    touchpoint: tp,
    touchpoint_name: r.touchpoint.name,
    kind: r.period.kind,
    period_key: r.period.key,
    period: r.period.period,
    previous_period: r.period.previous,
    scope: reportScope(overview.scope as Scope, reviews.map((a) => a.summary), sendsEvents),
    generated_at: new Date(deps.clock.now()).toISOString(),
    trigger: r.trigger,
    headline: headline(r.period, overview, findings, reviewed),
    summary: summarize(r.period, r.touchpoint.name, overview, findings, reviewed),
    findings,
    charts: drawn,
    ...(reviewed ? { reviews: reviewed } : {}),
    notes,
  };
}

/**
 * What the report counts. A website's: its visitors (behavior_overview's scope). An app's: its app-store
 * reviews, as the feedback tools say it, and its visitors only when it sends events.
 */
function reportScope(overview: Scope, summaries: (Json | null)[], sendsEvents: boolean): Scope {
  const names = [
    ...new Set(summaries.flatMap((s) => ((s?.apps ?? []) as Json[]).map((a) => String(a.app?.name)))),
  ];
  if (!names.length) return overview;
  const reviews = `app-store reviews of ${names.join(", ")}`;
  return { ...overview, traffic: sendsEvents ? `${overview.traffic} and ${reviews}` : reviews };
}

const DAY = 86_400_000;
const shift = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const countOf = (x: unknown) => typeof x === "number" ? x : 0; // "fewer than 5" is drawn as 0

function charts(
  now: Json | null,
  before: Json | null,
  pagesNow: Json | null,
  pagesBefore: Json | null,
): ReportCharts {
  const days = (a: Json | null) =>
    ((a?.series ?? []) as Json[]).map((p) => ({ date: String(p.bucket), value: countOf(p.visitors) }));
  const cur = days(now);
  const prev = days(before);
  // the period before, drawn over the same days: shifted by its distance to this one
  const offset = cur.length && prev.length
    ? Math.round((Date.parse(cur[0].date) - Date.parse(prev[0].date)) / DAY)
    : 0;
  const pageBefore = new Map<string, number>(
    ((pagesBefore?.pages ?? []) as Json[]).map((p) => [p.page, p.pageviews]),
  );
  return {
    visitors_by_day: cur,
    previous_by_day: prev.map((p) => ({ date: shift(p.date, offset), value: p.value })),
    top_pages: ((pagesNow?.pages ?? []) as Json[]).slice(0, 10).map((p) => ({
      label: shownPath(p.page), // as people read it; the finding's numbers keep the stored form
      value: p.pageviews,
      previous: pageBefore.get(p.page) ??
        (pagesBefore && pagesBefore.pages_total <= pagesBefore.pages.length ? 0 : null),
    })),
  };
}

type Compared = { value: number | null; previous: number | null } | undefined;

/** The app's review figures over its own listings (feedback_summary answers), or null without any. */
function reviewFigures(summaries: (Json | null)[]): ReviewFigures | null {
  const apps = summaries.flatMap((s) => (s?.apps ?? []) as Json[]);
  if (!apps.length) return null;
  const sum = (f: (a: Json) => number | null) => apps.reduce((n, a) => n + (f(a) ?? 0), 0);
  const reviews = sum((a) => (a.reviews as Compared)?.value ?? 0);
  const before = apps.some((a) => typeof (a.reviews as Compared)?.previous === "number")
    ? sum((a) => (a.reviews as Compared)?.previous ?? 0)
    : null;
  // averages weighted by each listing's reviews
  const mean = (pick: (a: Json) => Compared, weight: (a: Json) => number) => {
    const rated = apps.filter((a) => typeof pick(a)?.value === "number" && weight(a) > 0);
    const w = rated.reduce((n, a) => n + weight(a), 0);
    return w ? Math.round(rated.reduce((n, a) => n + pick(a)!.value! * weight(a), 0) / w * 100) / 100 : null;
  };
  const meanBefore = (a: Json) => ({
    value: (a.average_rating as Compared)?.previous ?? null,
    previous: null,
  });
  return {
    reviews,
    reviews_before: before,
    average_rating: mean((a) => a.average_rating as Compared, (a) => (a.reviews as Compared)?.value ?? 0),
    average_rating_before: mean(meanBefore, (a) => (a.reviews as Compared)?.previous ?? 0),
  };
}

/** An app's charts: reviews by star and by version; the web charts stay only when the app sends events. */
function appCharts(summaries: (Json | null)[], sendsEvents: boolean): Partial<ReportCharts> {
  const apps = summaries.flatMap((s) => (s?.apps ?? []) as Json[]);
  const stars = [1, 2, 3, 4, 5].map((n) => ({
    label: `${n} star${n === 1 ? "" : "s"}`,
    value: apps.reduce((t, a) => t + countOf((a.rating_distribution as Json | undefined)?.[String(n)]), 0),
  }));
  const versions = new Map<string, { value: number; rated: number; sum: number }>();
  for (const a of apps) {
    for (const v of (a.versions ?? []) as Json[]) {
      const x = versions.get(String(v.version)) ?? { value: 0, rated: 0, sum: 0 };
      x.value += countOf(v.reviews);
      if (typeof v.average_rating === "number") {
        x.rated += countOf(v.reviews);
        x.sum += v.average_rating * countOf(v.reviews);
      }
      versions.set(String(v.version), x);
    }
  }
  return {
    ...(sendsEvents ? {} : { visitors_by_day: [], previous_by_day: [], top_pages: [] }),
    ratings: stars.some((s) => s.value > 0) ? stars : [],
    versions: [...versions].sort((a, b) => b[1].value - a[1].value).slice(0, 10).map(([label, x]) => ({
      label,
      value: x.value,
      average_rating: x.rated ? Math.round(x.sum / x.rated * 100) / 100 : null,
    })),
  };
}
