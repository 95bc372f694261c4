/**
 * History import: NDJSON streamed line by line (memory stays bounded whatever the size), each line through
 * the live pipelines with its own time. Events go to `ingestWebEvents` in groups of consecutive lines that
 * share an arrival (receive time, address, user agent), as one SDK batch did; hits go to `ingestHits` with
 * their own timestamp as receive time, so any age is accepted. Every bad line is counted; the first 100
 * are listed with their line number and reason.
 */
import type { WriteContext } from "./context.ts";
import type { EnvName, Org, Touchpoint } from "../store/records.ts";
import { keys } from "../store/keys.ts";
import { BehaviorEvent, type BehaviorEventInput } from "../schemas/events.ts";
import { CrawlEvent } from "../schemas/server_events.ts";
import { describeZodError } from "../schemas/zod_errors.ts";
import { ingestWebEvents, tooLargeMessage } from "./web.ts";
import type { Arrival } from "./enrich_event.ts";
import { NOT_WELL_FORMED } from "../schemas/json_limits.ts";
import { canonicalIp } from "../enrich/ip.ts";
import { ingestHits } from "./hits.ts";
import { CompactedIds } from "./compacted_ids.ts";
import { decodeUtf8 } from "../text.ts";
import { type BodyLimits, jsonTextProblem } from "../schemas/json_limits.ts";
import { AHEAD_ALLOWED_MS, timeInRange } from "../clock.ts";

/**
 * How long an imported record's dedupe key lives, from the import: the same file imported again (or a retry)
 * within it stores nothing twice. Longer than live hits' 8 days (those arrive within 7 days of their time, and a
 * sender retries within minutes); an import is repeated by a person, days later. Dedupe keys cost ~94 bytes a
 * record while they live. Past it, a compacted line is found in the parts of its time (./compacted_ids.ts).
 */
export const IMPORT_DEDUPE_MS = 35 * 86_400_000;

/** An import line's nesting, bounded before parsing (its values are then guarded by the event schemas). */
const LINE_SHAPE: BodyLimits = { depth: 10_000, keys: Infinity, strings: Infinity, stringChars: Infinity };

export interface ImportTarget {
  org: Org;
  touchpoint: Touchpoint;
  env: EnvName;
}

export interface ImportResult {
  imported: number;
  duplicates: number;
  /** the first 100 bad lines */
  rejected: { line: number; error: string }[];
  /** all bad lines */
  rejected_total: number;
}

const MAX_LINE_BYTES = 1024 * 1024;
const HIT_REASONS = {
  invalid: "invalid hit",
  unknown_host: "host is not this environment's domain",
  not_crawler: "user agent is not a crawler",
};
const MAX_LISTED = 100;
const GROUP = 200;
/**
 * Events and hits being stored at once: about 4 full group commits (lib/store/commit_group.ts merges
 * batches that wait into commits of up to 100 records). Histories hold ~1.5 events an arrival, so the
 * former cap of 8 batches left ~12 records a commit. Memory stays bounded by this, GROUP and HELD_HITS.
 */
const IN_FLIGHT = 400;
/** Hits of one group lie within one such span, so none is older than the live 7-day limit at its time. */
const HIT_SPAN_MS = 6 * 86_400_000;
const HIT_GROUP = 100;
const HELD_HITS = 1_000;
/**
 * Splits a byte stream into lines (a newline byte is never part of another UTF-8 character) without holding
 * more than one line (capped) in memory. Each line is decoded on its own, so bytes that are not UTF-8 make
 * that line a rejected one, naming its field, and not the import.
 */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<{ text: string | null; n: number }> {
  const reader = body.getReader();
  let parts: Uint8Array[] = [], size = 0, n = 0, tooLong = false;
  const line = () => {
    const all = new Uint8Array(size);
    let at = 0;
    for (const p of parts) all.set(p, at), at += p.length;
    parts = [], size = 0;
    return decodeUtf8(all);
  };
  const add = (piece: Uint8Array) => {
    if (tooLong) return; // keep reading to the line's end, but not its bytes
    if (size + piece.length > MAX_LINE_BYTES) {
      tooLong = true, parts = [], size = 0;
      return;
    }
    parts.push(piece), size += piece.length;
  };
  while (true) {
    const { done, value } = await reader.read();
    if (value) {
      let from = 0, at: number;
      while ((at = value.indexOf(10, from)) >= 0) {
        add(value.subarray(from, at));
        n++;
        yield { text: tooLong ? null : line(), n };
        tooLong = false;
        from = at + 1;
      }
      add(value.slice(from)); // a copy: the rest of the chunk is not kept alive
    }
    if (done) break;
  }
  if (tooLong) yield { text: null, n: n + 1 };
  else if (size) yield { text: line(), n: n + 1 };
}

/**
 * The line's `referrer` is the page's referrer, as the web SDK sends it in `properties.referrer` (where
 * attribution reads it); one the event's own properties already name wins.
 */
function withReferrer(event: Record<string, unknown>, referrer: string | null | undefined) {
  const props = event.properties;
  if (!referrer || typeof props !== "object" || props === null || Array.isArray(props)) return event;
  if ("referrer" in props) return event;
  return { ...event, properties: { ...props, referrer } };
}

/**
 * A line's time as epoch ms; null when it is not a time or lies outside what the import accepts: at most
 * AHEAD_ALLOWED_MS ahead, as live hits (lib/clock.ts). A history lies in the past; a later time would be
 * counted as "today" tomorrow again and make the freshness notice name the future.
 */
function lineTime(v: unknown, now: number): number | null {
  const t = typeof v === "number" ? v : typeof v === "string" ? Date.parse(v) : NaN;
  return timeInRange(t, now, AHEAD_ALLOWED_MS) ? t : null;
}

const TIME_RANGE = `between 2000-01-01 and ${AHEAD_ALLOWED_MS / 60_000} minutes past now`;

export async function importNdjson(
  ctx: WriteContext,
  target: ImportTarget,
  body: ReadableStream<Uint8Array>,
): Promise<ImportResult> {
  const { deps } = ctx;
  const result: ImportResult = { imported: 0, duplicates: 0, rejected: [], rejected_total: 0 };
  const reject = (line: number, error: string) => {
    result.rejected_total++;
    if (result.rejected.length < MAX_LISTED) result.rejected.push({ line, error });
  };
  // past the dedupe window a compacted line is found in the parts of its time only (./compacted_ids.ts)
  const compacted = new CompactedIds(deps.kv, target.org.id, target.env);
  const touchpoints: Touchpoint[] = [];
  for await (const e of deps.kv.list<Touchpoint>({ prefix: keys.touchpoints(target.org.id) })) {
    touchpoints.push(e.value);
  }

  // Batches of events and groups of hits are stored concurrently, up to IN_FLIGHT items at once (each
  // batch stays whole; dedupe holds across them). A batch that fails is held as the import's error (thrown
  // once all in flight have ended), never left as an unhandled rejection while more lines stream in.
  const inFlight = new Set<Promise<void>>();
  let inFlightItems = 0;
  let failure: { error: unknown } | null = null;
  const run = async (items: number, work: () => Promise<void>) => {
    if (failure) {
      await Promise.all(inFlight);
      throw failure.error;
    }
    const job: Promise<void> = work().catch((error) => {
      failure ??= { error };
    }).finally(() => {
      inFlight.delete(job);
      inFlightItems -= items;
    });
    inFlight.add(job);
    inFlightItems += items;
    while (inFlightItems >= IN_FLIGHT) await Promise.race(inFlight);
  };

  let group: BehaviorEventInput[] = [];
  let groupLines: number[] = [];
  let arrival: Arrival | null = null;
  const flushEvents = async () => {
    if (!group.length || !arrival) return;
    const batch = group, lineNos = groupLines, at = arrival;
    group = [];
    groupLines = [];
    await run(batch.length, async () => {
      const kept: number[] = [];
      for (let i = 0; i < batch.length; i++) {
        if (await compacted.has("ev", at.receivedAt, batch[i].event_id)) result.duplicates++;
        else kept.push(i);
      }
      if (!kept.length) return;
      const tooLarge = (i: number, bytes: number) => reject(lineNos[kept[i]], tooLargeMessage(bytes));
      const events = kept.length === batch.length ? batch : kept.map((i) => batch[i]);
      const r = await ingestWebEvents(ctx, { ...target, dedupeMs: IMPORT_DEDUPE_MS }, events, at, tooLarge);
      result.imported += r.stored;
      result.duplicates += r.duplicates;
    });
  };

  // Hits are grouped by 6-day span of their timestamps (histories are seldom in time order): the group's
  // newest timestamp is its receive time, so none counts as older than the live 7-day limit and any
  // history imports. At most HELD_HITS wait in open groups.
  type HitLine = { n: number; hit: Record<string, unknown>; at: number };
  const spans = new Map<number, HitLine[]>();
  let held = 0;
  const hitTarget = (receivedAt: number) => ({
    org: target.org.id,
    touchpoint: target.touchpoint.id,
    env: target.env,
    touchpoints,
    receivedAt,
    clockOffsetMs: 0,
    dedupeMs: IMPORT_DEDUPE_MS,
  });
  const storeHits = async (all: HitLine[]) => {
    const group: HitLine[] = [];
    for (const h of all) {
      if (await compacted.has("hit", h.at, String(h.hit.event_id).toLowerCase())) result.duplicates++;
      else group.push(h);
    }
    if (!group.length) return;
    const receivedAt = Math.max(...group.map((h) => h.at));
    const r = await ingestHits(ctx, hitTarget(receivedAt), group.map((h) => h.hit));
    result.imported += r.accepted;
    result.duplicates += r.duplicates;
    if (r.rejected.invalid + r.rejected.unknown_host + r.rejected.not_crawler === 0) return;
    // name the rejected lines: alone, each is rejected again (a stored one only shows as a duplicate)
    for (const h of group) {
      const one = await ingestHits(ctx, hitTarget(receivedAt), [h.hit]);
      const why = (Object.keys(one.rejected) as (keyof typeof one.rejected)[]).find((k) =>
        one.rejected[k] > 0
      );
      if (why) reject(h.n, HIT_REASONS[why]);
    }
  };
  const flushSpan = (span: number) => {
    const group = spans.get(span)!;
    spans.delete(span);
    held -= group.length;
    return run(group.length, () => storeHits(group));
  };
  const flushHits = async () => {
    for (const span of [...spans.keys()]) await flushSpan(span);
  };
  const addHit = async (n: number, hit: Record<string, unknown>) => {
    const at = typeof hit.timestamp === "string" ? Date.parse(hit.timestamp) : deps.clock.now(); // checked by the caller
    const span = Math.floor(at / HIT_SPAN_MS);
    const group = spans.get(span) ?? [];
    spans.set(span, group);
    group.push({ n, hit, at });
    held++;
    if (group.length >= HIT_GROUP) await flushSpan(span);
    else if (held >= HELD_HITS) await flushHits();
  };
  const drain = async () => {
    try {
      await flushEvents();
      await flushHits();
    } finally {
      await Promise.all(inFlight);
    }
    if (failure) throw failure.error;
  };

  try {
    for await (const { text, n } of lines(body)) {
      if (text === null) {
        reject(n, `line is longer than ${MAX_LINE_BYTES} bytes`);
        continue;
      }
      if (!text.trim()) continue;
      let item: Record<string, unknown>;
      const deep = jsonTextProblem(text, LINE_SHAPE); // V8's parse of very deep nesting is superlinear
      if (deep) {
        reject(n, deep);
        continue;
      }
      try {
        item = JSON.parse(text);
        if (typeof item !== "object" || item === null || Array.isArray(item)) throw new Error();
      } catch {
        reject(n, "not a JSON object");
        continue;
      }
      const { kind, received_at, ip, user_agent, referrer, ...rest } = item;
      if (kind === "hit") {
        await flushEvents();
        const { kind: _kind, ...hit } = item; // every other field is the CrawlEvent
        const parsed = CrawlEvent.safeParse(hit);
        if (!parsed.success) reject(n, describeZodError(parsed.error));
        else if (typeof hit.timestamp === "string" && lineTime(hit.timestamp, deps.clock.now()) === null) {
          reject(n, `timestamp: must be ${TIME_RANGE}`);
        } else await addHit(n, hit);
        continue;
      }
      if (kind !== "event") {
        reject(n, 'kind must be "event" or "hit"');
        continue;
      }
      const at = lineTime(received_at, deps.clock.now());
      if (at === null) {
        reject(n, `received_at: must be an ISO 8601 date-time or epoch milliseconds ${TIME_RANGE}`);
        continue;
      }
      await flushHits();
      if (referrer !== undefined && referrer !== null && typeof referrer !== "string") {
        reject(n, "referrer: must be a URL string");
        continue;
      }
      if (typeof user_agent === "string" && !user_agent.isWellFormed()) {
        reject(n, `user_agent: ${NOT_WELL_FORMED}`);
        continue;
      }
      const parsed = BehaviorEvent.safeParse(withReferrer(rest, referrer));
      if (!parsed.success) {
        reject(n, describeZodError(parsed.error));
        continue;
      }
      const next: Arrival = {
        receivedAt: at,
        ip: canonicalIp(typeof ip === "string" ? ip : null),
        userAgent: typeof user_agent === "string" ? user_agent : null,
      };
      if (
        !arrival || arrival.receivedAt !== next.receivedAt || arrival.ip !== next.ip ||
        arrival.userAgent !== next.userAgent || group.length >= GROUP
      ) {
        await flushEvents();
        arrival = next;
      }
      group.push(parsed.data);
      groupLines.push(n);
    }
  } catch (e) {
    // the body failed midway (a connection reset): the lines read before it are stored, and the 500 comes
    // only once no commit is still running (a retry then finds them as duplicates)
    await drain().catch(() => {});
    throw e;
  }
  await drain();
  return result;
}
