/**
 * Reviews of an app, held in memory per instance so answers over 100,000 reviews take milliseconds. Each
 * read checks the app's stamp (one KV read): any write bumps it, so a cached copy is never stale across
 * instances. Reviews stored under an older analysis are re-analysed on load, a bounded number at a time
 * (reanalyse.ts).
 *
 * What is kept is bounded by bytes (REVIEW_CACHE_BYTES, the reviews' estimated heap size, `reviewBytes`), not
 * only by count: a review as loaded holds ~1.4 KB of heap (bench/review_cache.ts), so 400,000 of them were
 * ~570 MB, past a 512 MB Deploy isolate beside the read engine's part cache. The least recently used entry goes
 * first. An app whose reviews do not fit is still answered from KV, listed again on each read:
 * - `get` (every review of the app) returns them all without keeping them;
 * - `between` (one period's reviews, what the feedback tools ask) keeps the calendar months (UTC) of the
 *   period asked and of the period before it (the tools compare the two), else the months of the period, when
 *   they fit, so the previous period and other questions over the same weeks are answered from memory too;
 *   else it only answers.
 * Reads of one app at one stamp that arrive while it is being listed wait for that listing instead of listing
 * it again. An app whose reviews all have their date keys (store.ts; keys.feedbackReviewsDated) is listed by
 * date, a period's read listing only those months. An app stored before the date keys, until the review job
 * has written them (review_dates.ts), is listed whole by review id, and a period's read keeps the whole app
 * when it fits (the listing read it all anyway).
 */
import type { Deps } from "../deps.ts";
import type { StoredReview } from "./types.ts";
import { keys } from "../store/keys.ts";
import { isStale, refreshStale } from "./reanalyse.ts";
import { loadAnalysis } from "./analysis/on_demand.ts";

/**
 * The reviews' share of an instance's memory: a 512 MB isolate idles at ~150 MB and the read engine keeps
 * PART_CACHE_MB (288 by default, 128 advised on Deploy). A constant: lib/config.ts has no setting for it.
 */
export const REVIEW_CACHE_BYTES = 64 * 1048576;
/** Entries at most (periods of apps too large to keep whole could otherwise pile up small entries). */
const MAX_ENTRIES = 256;

/**
 * A review's heap size as loaded from KV, estimated on the safe side: V8 holds a string of Latin-1 text in one
 * byte a character and other text in two (counted as two), an object's fields, the analysis and the
 * arrays cost ~500 bytes beside. bench/review_cache.ts: 1.38 KB measured a review of ~300 characters of text,
 * estimated ~1.5 KB.
 */
export function reviewBytes(r: StoredReview): number {
  let chars = r.text.length + r.id.length + r.app.length + r.content_hash.length;
  if (r.title) chars += r.title.length;
  if (r.reply) chars += r.reply.text.length;
  if (r.author_hash) chars += r.author_hash.length;
  if (r.version) chars += r.version.length;
  if (r.language) chars += r.language.length;
  if (r.country) chars += r.country.length;
  let extra = 0;
  for (const t of r.analysis.topics) extra += 24 + t.length * 2;
  for (const p of r.analysis.phrases) extra += 24 + p.length * 2;
  return 520 + chars * 2 + extra;
}

interface Entry {
  stamp: bigint;
  /** The app's reviews created in [from, to), newest first; the whole app: -Infinity to Infinity. */
  from: number;
  to: number;
  reviews: StoredReview[];
  bytes: number;
}

const WHOLE = { from: -Infinity, to: Infinity };

/** The first instant of the UTC month of t; of the month after it with `after`. */
function monthOf(t: number, after = false): number {
  if (!Number.isFinite(t)) return t;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + (after ? 1 : 0), 1);
}

/**
 * Newest first. The sort is stable and both listings give reviews of one instant in the order of their ids
 * (by id; by date, then id), so either answers in the same order.
 */
const newestFirst = (a: StoredReview, b: StoredReview) => b.created_at - a.created_at;

/** The process's reviews in memory (createContext makes one; the feedback tools read through it). */
export class ReviewCache {
  #entries = new Map<string, Entry>(); // least recently used first
  #bytes = 0;
  #loading = new Map<string, { stamp: bigint; done: Promise<unknown> }[]>();

  constructor(private deps: Deps, readonly budget = REVIEW_CACHE_BYTES) {}

  /** Estimated bytes of the reviews kept (at most `budget`). */
  get bytes(): number {
    return this.#bytes;
  }

  /** An app's reviews, newest first (kept when they fit the budget, else listed again on the next read). */
  async get(org: string, app: string): Promise<StoredReview[]> {
    const id = `${org}/${app}`;
    const { stamp, dated } = await this.#state(org, app);
    return (this.#find(id, stamp, WHOLE) ?? await this.#load(id, org, app, stamp, dated, null)).reviews;
  }

  /** An app's reviews created in [from, to), newest first. */
  async between(org: string, app: string, from: number, to: number): Promise<StoredReview[]> {
    const id = `${org}/${app}`;
    const { stamp, dated } = await this.#state(org, app);
    const hit = this.#find(id, stamp, { from, to }) ??
      await this.#load(id, org, app, stamp, dated, { from, to });
    if (hit.from >= from && hit.to <= to) return hit.reviews.slice();
    return hit.reviews.filter((r) => r.created_at >= from && r.created_at < to);
  }

  /** The app's stamp, and whether its reviews all have their date keys (one KV read). */
  async #state(org: string, app: string): Promise<{ stamp: bigint; dated: boolean }> {
    const [stamp, dated] = await this.deps.kv.getMany<[Deno.KvU64, boolean]>([
      keys.feedbackStamp(org, app),
      keys.feedbackReviewsDated(org, app),
    ]);
    return { stamp: stamp.value ? stamp.value.value : 0n, dated: dated.value === true };
  }

  /** A kept entry of the app at this stamp covering [from, to), made most recently used. */
  #find(id: string, stamp: bigint, want: { from: number; to: number }): Entry | null {
    for (const [k, e] of this.#entries) {
      if (!k.startsWith(`${id}|`)) continue;
      if (e.stamp !== stamp) {
        if (e.stamp < stamp) this.#drop(k, e); // a write since: never answered again
        continue; // (a later one: kept for the reads that see its stamp)
      }
      if (e.from <= want.from && e.to >= want.to) {
        this.#entries.delete(k);
        this.#entries.set(k, e);
        return e;
      }
    }
    return null;
  }

  #drop(k: string, e: Entry) {
    this.#entries.delete(k);
    this.#bytes -= e.bytes;
  }

  /**
   * Lists the app once (or waits for a listing of it at this stamp already under way, then looks again):
   * every review while they fit the budget, else (a period asked) the months around the period. Keeps what
   * fits; returns an entry covering what was asked, kept or not.
   */
  async #load(
    id: string,
    org: string,
    app: string,
    stamp: bigint,
    dated: boolean,
    want: { from: number; to: number } | null,
  ): Promise<Entry> {
    const running = this.#loading.get(id)?.filter((l) => l.stamp === stamp) ?? [];
    if (running.length) {
      await Promise.allSettled(running.map((l) => l.done));
      const hit = this.#find(id, stamp, want ?? WHOLE);
      if (hit) return hit;
    }
    const done = this.#list(org, app, stamp, dated, want);
    const mine = { stamp, done };
    this.#loading.set(id, [...(this.#loading.get(id) ?? []), mine]);
    try {
      const entry = await done;
      this.#keep(id, entry);
      return entry;
    } finally {
      const left = (this.#loading.get(id) ?? []).filter((l) => l !== mine);
      if (left.length) this.#loading.set(id, left);
      else this.#loading.delete(id);
    }
  }

  async #list(
    org: string,
    app: string,
    stamp: bigint,
    dated: boolean,
    want: { from: number; to: number } | null,
  ): Promise<Entry> {
    // The widest that fits is kept: the whole app (listed whole); the months of the period and of the one before it (the
    // tools compare a period with the previous one); the months of the period; else nothing (only answered).
    const tiers = want
      ? [
        { from: monthOf(want.from - (want.to - want.from)), to: monthOf(want.to - 1, true), bytes: 0 },
        { from: monthOf(want.from), to: monthOf(want.to - 1, true), bytes: 0 },
      ]
      : [];
    const wide = tiers[0];
    // By date: a period's read lists only its months (and those of the period before), never the whole app.
    const byDate = dated && want && Number.isFinite(wide.from) && Number.isFinite(wide.to);
    const at = keys.feedbackReviewsAt(org, app);
    const selector: Deno.KvListSelector = byDate
      ? { start: [...at, wide.from], end: [...at, wide.to] }
      : { prefix: dated ? at : keys.feedbackReviews(org, app) };
    let all: StoredReview[] | null = byDate ? null : [], allBytes = 0;
    let months: StoredReview[] = [];
    const it = this.deps.kv.list<StoredReview>(selector, { batchSize: 1000 });
    for await (const e of it) {
      const r = e.value, b = reviewBytes(r);
      if (all) {
        all.push(r);
        allBytes += b;
        if (want && allBytes > this.budget) all = null; // too large to keep whole
      }
      if (wide && r.created_at >= wide.from && r.created_at < wide.to) {
        months.push(r);
        for (const t of tiers) if (r.created_at >= t.from && r.created_at < t.to) t.bytes += b;
      }
    }
    let entry: Entry | null = all ? { stamp, ...WHOLE, reviews: all, bytes: allBytes } : null;
    for (const t of tiers) {
      if (entry || t.bytes > this.budget) continue;
      months = months.filter((r) => r.created_at >= t.from && r.created_at < t.to);
      entry = { stamp, from: t.from, to: t.to, reviews: months, bytes: t.bytes };
    }
    // Not even the period's months fit: only the period, answered and not kept (its bytes say so).
    entry ??= {
      stamp,
      from: want!.from,
      to: want!.to,
      reviews: months.filter((r) => r.created_at >= want!.from && r.created_at < want!.to),
      bytes: Infinity,
    };
    // Newest first, so that answers walking them (quotes, lists) stop early; stale analyses refreshed, the
    // newest first (the same ones whichever keys were listed).
    if (entry.reviews.some(isStale)) await loadAnalysis(); // refreshStale re-analyses them
    entry.reviews = refreshStale(entry.reviews.sort(newestFirst));
    return entry;
  }

  /** Keeps an entry that fits, dropping the least recently used ones until the budget holds. */
  #keep(id: string, entry: Entry) {
    if (entry.bytes > this.budget) return;
    const key = `${id}|${entry.from}|${entry.to}`;
    // Entries of the app from before a write, and those the new one covers, are no longer needed; a listing
    // that finished after one of a later write is not kept.
    for (const [k, e] of this.#entries) {
      if (!k.startsWith(`${id}|`)) continue;
      if (e.stamp > entry.stamp) return;
      if (e.stamp < entry.stamp || (entry.from <= e.from && entry.to >= e.to)) this.#drop(k, e);
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    for (const [k, e] of this.#entries) {
      if ((this.#bytes <= this.budget && this.#entries.size <= MAX_ENTRIES) || k === key) break;
      this.#drop(k, e);
    }
  }
}
