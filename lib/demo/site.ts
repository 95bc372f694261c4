/**
 * A deterministic, realistic site: visitors, sessions, events and crawler hits from the traffic model
 * (model.ts, crawl.ts), written to KV as ingest stores them or emitted as import lines. The same seed and
 * end give the same site, byte for byte. `deno task generate` (scripts/generate.ts) and the dev start use it.
 */
import type { Deps } from "../deps.ts";
import { compact, COMPACT_GRACE_MS } from "../jobs/compact.ts";
import { dayNumber } from "../store/keys.ts";
import type { EnvName, StoredHit } from "../store/records.ts";
import { buildHitBatch } from "../parts/hit_batch.ts";
import { crawlerHits } from "./crawl.ts";
import { type Draft, SiteModel } from "./model.ts";
import { eventLine, hitLine, storedEvent, storedHit, type Target } from "./output.ts";
import { RawWriter } from "./raw_writer.ts";
import { DIRECT_ROWS_PER_PART, PartWriter, recordsOf, storedBefore } from "./part_writer.ts";
import { draftBatch } from "./draft_batch.ts";
import { DedupeKeys } from "./dedupe_keys.ts";
import { WEB_DEDUPE_MS } from "../ingest/web.ts";
import { HIT_DEDUPE_MS } from "../ingest/hits.ts";

export interface SiteOptions {
  org: string;
  touchpoint: string;
  env?: EnvName;
  host?: string;
  events: number;
  visitors?: number;
  hits?: number;
  days: number;
  seed: number;
  /** events end here (default: deps.clock.now()) */
  end?: number;
  /** fold the written records into parts right away (default true) */
  compact?: boolean;
  /**
   * write parts straight, as compaction would leave them, instead of raw records then compacting (much
   * faster for big sites); only when the site is not stored yet: a rerun takes the raw path, which stores
   * nothing twice
   */
  direct?: boolean;
  /** rows per part written straight (default: as compaction leaves them, a closed day's events in one part) */
  partRows?: number;
  /** parts written straight: every record's dedupe key (default), or only the first's (benches) */
  dedupeKeys?: boolean;
}

export interface SiteReport {
  /** generated */
  events: number;
  hits: number;
  /** newly stored; the others were stored already (same ids: a rerun with the same seed) */
  events_stored: number;
  hits_stored: number;
  write_ms: number;
  compact_ms: number;
}

const DAY_MS = 86_400_000;

function targetOf(o: SiteOptions): Target {
  return { org: o.org, touchpoint: o.touchpoint, env: o.env ?? "production", host: o.host ?? "example.com" };
}

function modelOf(o: SiteOptions, end: number): SiteModel {
  return new SiteModel({
    events: o.events,
    visitors: o.visitors ?? Math.max(1, Math.round(o.events / 10)),
    days: o.days,
    end,
    seed: o.seed,
  });
}

const hitsOf = (o: SiteOptions, end: number) =>
  crawlerHits(o.hits ?? Math.round(o.events / 10), end - o.days * DAY_MS, end, o.seed);

/** Fills an environment with a generated site (raw records as ingest stores them, then compacted). */
export async function generateSite(deps: Deps, o: SiteOptions): Promise<SiteReport> {
  const t0 = performance.now();
  const end = o.end ?? deps.clock.now();
  const target = targetOf(o);
  if (o.direct && o.compact !== false) {
    const direct = await generateParts(deps, o, end, target);
    if (direct) return { ...direct, write_ms: Math.round(performance.now() - t0), compact_ms: 0 };
  }
  const w = new RawWriter(deps.kv);
  const model = modelOf(o, end);
  for (const d of model.events()) await w.event(storedEvent(d, target));
  let hits = 0;
  for (const h of hitsOf(o, end)) {
    await w.hit(storedHit(h, target));
    hits++;
  }
  await w.close();
  const t1 = performance.now();
  if (o.compact !== false) {
    await compact(deps, o.org, target.env, "ev", { graceMs: 0 });
    await compact(deps, o.org, target.env, "hit", { graceMs: 0 });
  }
  return {
    events: model.emitted,
    hits,
    events_stored: w.stored.events,
    hits_stored: w.stored.hits,
    write_ms: Math.round(t1 - t0),
    compact_ms: Math.round(performance.now() - t1),
  };
}

/**
 * Drafts held at once while parts are written straight: the model is run once per window of days, keeping
 * that window's drafts, so a closed day becomes one part as compaction's day merge leaves it (10M events:
 * five runs of the model, ~16 s each, holding ~2M drafts) instead of all days waiting at once.
 */
const HELD_DRAFTS = 2_000_000;

/**
 * The site written as parts (lib/demo/part_writer.ts); null when its first event is stored already. The
 * dedupe keys of every event and hit are collected during the model's first run and written in one sorted
 * pass (dedupe_keys.ts) before any part is built: with the main thread waiting, KV's writer takes commit
 * after commit (written beside the builds, each commit waited for a build's turn and the pass fell behind,
 * finishing alone after the last part); with `dedupeKeys: false` only the first event's (the one a rerun
 * looks for) and the first hit's. A run stopped part way leaves a store a rerun does not mend (keys of
 * records not stored yet): generate into a fresh one.
 */
async function generateParts(deps: Deps, o: SiteOptions, end: number, target: Target) {
  // a day compaction would call closed merges into parts of dayPartRows; the open day's stay small
  const cutoff = deps.clock.now() - COMPACT_GRACE_MS;
  const rows = o.partRows ??
    ((day: number) => ((day + 1) * DAY_MS <= cutoff ? deps.config.dayPartRows : DIRECT_ROWS_PER_PART));
  const all = o.dedupeKeys !== false;
  const dedupe = new DedupeKeys(o.org, all ? o.events + (o.hits ?? Math.round(o.events / 10)) : 2);
  // drafts are held until their day's part is built, and made into its columns then (no records)
  const events = new PartWriter<Draft>(deps, o.org, target.env, "ev", rows, "none", {
    id: (d) => d.id,
    receivedAt: (d) => d.t,
    placedAt: (d) => d.t,
    record: (d) => storedEvent(d, target),
    batch: (held, turn) => draftBatch(held, target, turn),
  });
  const first = dayNumber(end - o.days * DAY_MS), last = dayNumber(end - 1);
  const perRun = Math.max(1, Math.floor((o.days * HELD_DRAFTS) / Math.max(1, o.events)));
  const runs = Math.ceil((last - first + 1) / perRun);
  const windowOf = (t: number) =>
    Math.min(runs - 1, Math.max(0, Math.floor((dayNumber(t) - first) / perRun)));
  // the drafts a run has the model make: its window's, and in the first run every one whose dedupe key is
  // wanted (all, or the first: a rerun looks for it)
  const keepOf = (run: number) => {
    if (runs === 1 || (run === 0 && all)) return undefined;
    let firstSeen = run > 0;
    return (t: number) => (firstSeen ? windowOf(t) === run : (firstSeen = true));
  };
  let emitted = 0, checked = false;
  for (let run = 0; run < runs; run++) {
    const model = modelOf(o, end);
    for (const d of model.events(keepOf(run))) {
      if (!checked) {
        if (await storedBefore(deps.kv, o.org, d.id)) return null;
        dedupe.add(d.id, d.t, WEB_DEDUPE_MS);
        checked = true;
      } else if (run === 0 && all) dedupe.add(d.id, d.t, WEB_DEDUPE_MS);
      if (windowOf(d.t) === run) await events.add(d);
    }
    if (run === 0) {
      for (const h of hitsOf(o, end)) {
        dedupe.add(h.id, storedHit(h, target).received_at, HIT_DEDUPE_MS);
        if (!all) break;
      }
      // every key is known: KV writes them, in key order, before the parts are built
      await dedupe.write(deps.kv);
    }
    await events.close();
    emitted = model.emitted;
  }
  // a new site's hits have no verification outcomes stored: their batch is built without reading each one's
  const hits = new PartWriter<StoredHit>(deps, o.org, target.env, "hit", o.partRows, "none", {
    ...recordsOf("hit"),
    batch: (held, turn) => buildHitBatch(held, (h) => h.verification, turn),
  });
  for (const h of hitsOf(o, end)) await hits.add(storedHit(h, target));
  await hits.close();
  return { events: emitted, hits: hits.rows, events_stored: events.rows, hits_stored: hits.rows };
}

/** NDJSON lines of a generated site, for the import endpoint. */
export function* siteLines(o: SiteOptions & { end: number }): Generator<string> {
  const target = targetOf(o);
  for (const d of modelOf(o, o.end).events()) yield eventLine(d, target);
  for (const h of hitsOf(o, o.end)) yield hitLine(h, target);
}
