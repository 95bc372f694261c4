/**
 * Listing records that may not decode, without letting one of them stop everything else. KV cannot hand
 * back a value it cannot deserialize (one nested thousands of levels deep, stored before ingest refused
 * those): the whole listing throws "could not deserialize value", and with it every read and compaction of
 * that organization. A record our own decoder refuses (a damaged or unknown layout) would do the same one
 * level up. Either kind is moved aside under keys.quarantine (with its value when it can be read), logged,
 * counted and listed for operators (GET /admin/v1/orgs/:org/quarantine), and the listing goes on.
 *
 * KV names no key when it fails, so the unreadable key is found by bisecting the key space with one-entry
 * listings ("does [from, end) start with the bad entry?"): raw keys end in (receive time, event id), up to
 * ~100 list calls for the time and ~9 per character of an ASCII id. About a second per bad record, once:
 * the record is gone from the listing afterwards.
 */
import type { Log } from "../log.ts";
import { keys } from "./keys.ts";
import { unpackEvent } from "./event_codec.ts";
import type { EnvName, StoredEvent, StoredHit } from "./records.ts";
import { DAY, timeInRange } from "../clock.ts";

export interface Quarantined {
  key: Deno.KvKey;
  reason: string;
  found_at: number;
  /** the value as stored, when KV could read it (our decoder refused it) */
  value?: unknown;
}

/** KV's own failure to read a stored value back. */
export const isUnreadable = (e: unknown) =>
  /could not deserialize|deserializ/i.test(String((e as Error)?.message ?? e));

/** The types of a raw key's parts after its prefix: receive time, then event id. */
export type TailShape = readonly ("number" | "string")[];
export const RAW_TAIL: TailShape = ["number", "string"];

export interface ReadableOptions<T> {
  org: string;
  /** parts after `prefix` in every key listed */
  tail?: TailShape;
  /** the stored value, or a throw naming why it cannot be used; `now` bounds the times it may carry */
  decode: (value: unknown, now: number) => T;
  log: Log;
  now: number;
  limit?: number;
  batchSize?: number;
}

type Range = { prefix: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };

/**
 * Like kv.list over [start, end) within prefix (forward; start defaults to the prefix, end to its last key),
 * yielding decoded values and quarantining what cannot be read or decoded.
 */
export async function* listReadable<T>(
  kv: Deno.Kv,
  range: Range,
  o: ReadableOptions<T>,
): AsyncGenerator<{ key: Deno.KvKey; value: T; versionstamp: string }> {
  let from: Deno.KvKey = range.start ?? range.prefix;
  const end = range.end ?? [...range.prefix, true]; // `true` sorts after every other key part
  let left = o.limit ?? Infinity;
  // after a failure, one entry a batch: KV fails a whole batch, so only then is `last` right before the bad one
  let careful = false;
  let misses = 0;
  while (left > 0) {
    let last: Deno.KvKey | null = null;
    try {
      const list = kv.list({ start: from, end }, {
        batchSize: careful ? 1 : o.batchSize ?? 500,
        ...(Number.isFinite(left) ? { limit: left } : {}),
      });
      for await (const e of list) {
        last = e.key;
        let value: T;
        try {
          value = o.decode(e.value, o.now);
        } catch (err) {
          await quarantine(kv, o, e.key, `not decodable: ${String((err as Error)?.message ?? err)}`, e.value);
          continue;
        }
        left--;
        yield { key: e.key, value, versionstamp: e.versionstamp };
      }
      return;
    } catch (err) {
      if (!isUnreadable(err)) throw err;
      const after = last ? [...last, new Uint8Array()] : from; // the smallest key past `last`
      if (!careful) {
        careful = true;
        from = after;
        continue;
      }
      // the entry right after `last` (or the first one) cannot be read: find it, move it aside, go on
      const bad = await locateUnreadable(kv, range.prefix, after, end, o.tail ?? RAW_TAIL);
      if (!bad) {
        // gone: a concurrent listing (a tool's questions list the tail at once) moved it aside first; go on
        // from the same place. Still there and not found a few times: fail as before rather than loop.
        if (++misses > 3) throw err;
        careful = false;
        from = after;
        continue;
      }
      await quarantine(kv, o, bad, `KV cannot read the value back: ${String((err as Error).message)}`);
      from = bad;
      careful = false;
    }
  }
}

async function quarantine<T>(
  kv: Deno.Kv,
  o: ReadableOptions<T>,
  key: Deno.KvKey,
  reason: string,
  value?: unknown,
) {
  const record: Quarantined = {
    key,
    reason: reason.slice(0, 300),
    found_at: o.now,
    ...(value === undefined ? {} : { value }),
  };
  // one entry per key, whoever finds it first (a read and the compaction may both meet it)
  await kv.atomic().delete(key).set(keys.quarantined(o.org, key), record).commit();
  o.log.error("record quarantined", { org: o.org, key: key.map(String).join("/"), reason: record.reason });
}

/** True when the first entry in [from, end) is one KV cannot read (false for an empty or upside-down range). */
async function firstUnreadable(kv: Deno.Kv, from: Deno.KvKey, end: Deno.KvKey): Promise<boolean> {
  try {
    for await (const _ of kv.list({ start: from, end }, { limit: 1, batchSize: 1 })) return false;
    return false;
  } catch (e) {
    if (isUnreadable(e)) return true;
    if (/start key is greater than end key/i.test(String((e as Error)?.message))) return false;
    throw e;
  }
}

const MAX_CODE = 0x10ffff;
/** Code points in order without the surrogates (a key's string is UTF-8). */
const codeAt = (i: number) => (i < 0xd800 ? i : i + 0x800);
const CODES = MAX_CODE + 1 - 0x800;

/**
 * The key of the first entry at or after `from` (and before `end`), which KV cannot read; null if it is not
 * of the expected shape (or none is found).
 */
export async function locateUnreadable(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  from: Deno.KvKey,
  limit: Deno.KvKey,
  tail: TailShape,
): Promise<Deno.KvKey | null> {
  // "the bad entry sorts before [...known, x]": true from some x on, false below it
  const before = (known: Deno.KvKeyPart[], x: Deno.KvKeyPart) => firstUnreadable(kv, from, [...known, x]);
  if (!(await firstUnreadable(kv, from, limit))) return null;
  const known: Deno.KvKeyPart[] = [...prefix];
  for (const type of tail) {
    if (type === "number") {
      // the smallest integer n with `before(n)`: the part is n - 1 (receive times are whole milliseconds)
      const floor = typeof from[known.length] === "number" ? from[known.length] as number : -(2 ** 53);
      let lo = floor, hi = floor + 1, step = 1;
      while (!(await before(known, hi))) {
        if (hi >= 2 ** 53) return null;
        lo = hi, step *= 2, hi = Math.min(2 ** 53, hi + step);
      }
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (await before(known, mid)) hi = mid;
        else lo = mid;
      }
      known.push(hi - 1);
    } else {
      // character by character: the part is `s` once nothing sorts between s and s + "\u0001"
      let s = "";
      for (let len = 0; len < 512; len++) {
        if (await before(known, s + "\u0001")) break;
        // index of the next character: before(s + char) is false at lo, true from hi on
        let lo = 1, hi = CODES;
        if (!(await before(known, s + "\u0020")) && await before(known, s + "\u007f")) {
          lo = 0x20, hi = 0x7f; // printable ASCII (ids are): 7 probes instead of 21
        } else if (!(await before(known, s + String.fromCodePoint(MAX_CODE, MAX_CODE)))) {
          return null;
        }
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (await before(known, s + String.fromCodePoint(codeAt(mid)))) hi = mid;
          else lo = mid;
        }
        s += String.fromCodePoint(codeAt(lo));
      }
      known.push(s);
    }
  }
  // confirm: this very key cannot be read
  try {
    await kv.get(known);
    return null;
  } catch (e) {
    return isUnreadable(e) ? known : null;
  }
}

/** Quarantined records of an organization, oldest key first: the count and the first `limit`. */
export async function listQuarantined(kv: Deno.Kv, org: string, limit = 100) {
  const records: Quarantined[] = [];
  let count = 0;
  for await (const e of kv.list<Quarantined>({ prefix: keys.quarantine(org) })) {
    if (count++ < limit) records.push(e.value);
  }
  return { count, records };
}

/**
 * How far past now a stored time may lie before its record is moved aside. Ingest never writes one past
 * AHEAD_ALLOWED_MS (lib/clock.ts) ahead; the margin is wide so a clock set back (tests, a wrong host clock)
 * never hides real data.
 */
export const STORED_AHEAD_MS = 365 * DAY;

/** Why a stored time cannot be used, or null. Dates past year 275760 or NaN break every date computation. */
export function badTime(name: string, t: unknown, now: number): string | null {
  if (typeof t !== "number") return `${name} is not a number`;
  return timeInRange(t, now, STORED_AHEAD_MS)
    ? null
    : `${name} ${t} is outside 2000-01-01 .. a year past now`;
}

/** A raw event as stored, checked for what compaction and the engine rely on. */
const decodeEvent = (v: unknown, now: number): StoredEvent => {
  const e = unpackEvent(v);
  const isObject = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
  if (
    !isObject(e) || typeof e.id !== "string" || typeof e.received_at !== "number" ||
    !isObject(e.properties) || !isObject(e.context) || !isObject(e.geo)
  ) throw new Error("not a stored web event");
  const why = badTime("received_at", e.received_at, now);
  if (why) throw new Error(why);
  return e;
};

const decodeHit = (v: unknown, now: number): StoredHit => {
  const h = v as StoredHit | null;
  if (!h || typeof h !== "object" || typeof h.id !== "string" || typeof h.timestamp !== "number") {
    throw new Error("not a stored crawler hit");
  }
  const why = badTime("timestamp", h.timestamp, now) ??
    (h.received_at === undefined ? null : badTime("received_at", h.received_at, now));
  if (why) throw new Error(why);
  return h;
};

export interface RawWhere {
  org: string;
  env: EnvName;
  log: Log;
  now: number;
}

/**
 * Entries of a raw listing decoded between two turns of the event loop: KV deserializes a whole batch at once
 * (1,000 raw events held the loop ~50 ms on a busy machine, more with a collection in between).
 */
const RAW_BATCH = 250;

/** Raw web events of [from, to) receive time, decoded; unreadable ones quarantined. */
export function rawEvents(kv: Deno.Kv, w: RawWhere, from?: number, to?: number, limit?: number) {
  const prefix = keys.rawEvents(w.org, w.env);
  return listReadable(kv, {
    prefix,
    ...(from === undefined ? {} : { start: [...prefix, from] }),
    ...(to === undefined ? {} : { end: [...prefix, to] }),
  }, { org: w.org, decode: decodeEvent, log: w.log, now: w.now, limit, batchSize: RAW_BATCH });
}

/** Raw crawler hits of [from, to) receive time; unreadable ones quarantined. */
export function rawHits(kv: Deno.Kv, w: RawWhere, from?: number, to?: number, limit?: number) {
  const prefix = keys.rawHits(w.org, w.env);
  return listReadable(kv, {
    prefix,
    ...(from === undefined ? {} : { start: [...prefix, from] }),
    ...(to === undefined ? {} : { end: [...prefix, to] }),
  }, { org: w.org, decode: decodeHit, log: w.log, now: w.now, limit, batchSize: RAW_BATCH });
}

/**
 * A read of one raw listing that KV may fail on (a newest-first list cannot skip a record it cannot read
 * back): on failure, one pass in key order moves such records aside, then the read runs again.
 */
export async function healingRaw<T>(
  kv: Deno.Kv,
  w: RawWhere,
  kind: "ev" | "hit",
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch {
    for await (const _ of kind === "ev" ? rawEvents(kv, w) : rawHits(kv, w)) { /* heal */ }
    return await read();
  }
}
