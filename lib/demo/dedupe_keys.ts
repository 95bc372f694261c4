/**
 * A generated site's dedupe keys, each as ingest writes it (lib/store/commit_group.ts: `["dedupe", org, id]`
 * holding the receive time, expiring after the kind's dedupe window), collected first and then written in one
 * pass in key order. Ids are random uuids: written window by window, each window's sorted keys went into a
 * B-tree already holding the earlier windows' (at 10M events every commit of 500 keys rewrote ~50 pages, the
 * key range's pages rewritten once a window); all keys in one sorted pass are appends, a few pages a commit.
 * Uuid ids are held as 16 bytes each (a 10M site's 11M ids: 176 MB, not ~700 MB of strings the collector
 * walks); any other id is held as its string.
 */
import { keys } from "../store/keys.ts";

/**
 * A commit holds as many keys as KV takes in one atomic (1,000 mutations, 80 KiB of keys; a little kept
 * spare): every commit is one request to KV's writer thread, which takes requests one at a time from a queue
 * of one, so while the main thread is busy each request waits for an event-loop turn. Fewer, larger commits
 * are what is fast.
 */
const KEYS_PER_COMMIT = 1_000;
const KEY_BYTES_PER_COMMIT = 78_000;
const utf8 = new TextEncoder();
/** A string's share of an encoded KV key: a type byte, its UTF-8 bytes, an end byte. */
const partBytes = (s: string) => 2 + utf8.encode(s).length;
/** Commits waiting at once: enough that KV's writer always finds the next one queued. */
const IN_FLIGHT = 8;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Where a uuid's 32 hex digits sit in its 36 characters. */
const DIGITS = Array.from({ length: 36 }, (_, i) => i).filter((i) =>
  i !== 8 && i !== 13 && i !== 18 && i !== 23
);
/** Any uuid: all are 36 ASCII characters. */
const id0 = "00000000-0000-0000-0000-000000000000";
const HEX = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const NIBBLE = new Int8Array(128).fill(-1);
HEX.forEach((c, v) => NIBBLE[c] = v);

export class DedupeKeys {
  private bytes: Uint8Array;
  private ats: Float64Array;
  private ttls: number[] = [];
  private ttlOf: Uint8Array;
  private n = 0;
  private others: { id: string; at: number; ttl: number }[] = [];

  /** `expected`: about how many keys will be added (storage grows past it if needed). */
  constructor(private org: string, expected = 1024) {
    const cap = Math.max(16, expected);
    this.bytes = new Uint8Array(cap * 16);
    this.ats = new Float64Array(cap);
    this.ttlOf = new Uint8Array(cap);
  }

  get size(): number {
    return this.n + this.others.length;
  }

  /** The key of a record with this id, received at `receivedAt`, kept `ttl` ms (events' or hits' window). */
  add(id: string, receivedAt: number, ttl: number): void {
    let t = this.ttls.indexOf(ttl);
    if (t < 0) t = this.ttls.push(ttl) - 1;
    if (id.length !== 36 || t > 255 || !UUID.test(id)) {
      this.others.push({ id, at: receivedAt, ttl });
      return;
    }
    if (this.n === this.ats.length) this.grow();
    const b = this.bytes, o = this.n * 16;
    for (let k = 0; k < 16; k++) {
      b[o + k] = (NIBBLE[id.charCodeAt(DIGITS[2 * k])] << 4) | NIBBLE[id.charCodeAt(DIGITS[2 * k + 1])];
    }
    this.ats[this.n] = receivedAt;
    this.ttlOf[this.n++] = t;
  }

  /** Writes every key added, in key order, and forgets them. */
  async write(kv: Deno.Kv): Promise<void> {
    const n = this.n, b = this.bytes, ats = this.ats, ttlOf = this.ttlOf, ttls = this.ttls;
    const others = this.others.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const order = sortedOrder(b, n);
    this.bytes = new Uint8Array(0);
    this.ats = new Float64Array(0);
    this.ttlOf = new Uint8Array(0);
    this.n = 0;
    this.others = [];
    const chars = new Uint8Array(36);
    const idAt = (i: number) => {
      const o = i * 16;
      for (let k = 0; k < 16; k++) {
        chars[DIGITS[2 * k]] = HEX[b[o + k] >> 4];
        chars[DIGITS[2 * k + 1]] = HEX[b[o + k] & 15];
      }
      chars[8] =
        chars[13] =
        chars[18] =
        chars[23] =
          45; // "-"
      return String.fromCharCode.apply(null, chars as unknown as number[]);
    };
    // the uuids and the other ids merged in key order (string order is the keys' byte order for these)
    const writes: Promise<unknown>[] = [];
    const base = partBytes("dedupe") + partBytes(this.org), uuidKey = base + partBytes(id0);
    let op = kv.atomic(), inOp = 0, inOpBytes = 0, u = 0, x = 0;
    let id = u < n ? idAt(order[u]) : "";
    while (u < n || x < others.length) {
      const isUuid = u < n && (x >= others.length || id < others[x].id);
      const size = isUuid ? uuidKey : base + partBytes(others[x].id);
      if (inOp === KEYS_PER_COMMIT || inOpBytes + size > KEY_BYTES_PER_COMMIT) {
        writes.push(op.commit());
        op = kv.atomic();
        inOp = inOpBytes = 0;
        if (writes.length >= IN_FLIGHT) await writes.shift();
      }
      inOp++;
      inOpBytes += size;
      if (isUuid) {
        const i = order[u++];
        op.set(keys.dedupe(this.org, id), ats[i], { expireIn: ttls[ttlOf[i]] });
        if (u < n) id = idAt(order[u]);
      } else {
        const o = others[x++];
        op.set(keys.dedupe(this.org, o.id), o.at, { expireIn: o.ttl });
      }
    }
    if (inOp) writes.push(op.commit());
    for (const r of await Promise.all(writes)) {
      if (!(r as Deno.KvCommitResult).ok) throw new Error("dedupe write");
    }
  }

  private grow(): void {
    const cap = Math.max(1024, this.ats.length * 2);
    const bytes = new Uint8Array(cap * 16), ats = new Float64Array(cap), ttlOf = new Uint8Array(cap);
    bytes.set(this.bytes);
    ats.set(this.ats);
    ttlOf.set(this.ttlOf);
    [this.bytes, this.ats, this.ttlOf] = [bytes, ats, ttlOf];
  }
}

/**
 * The order of `n` 16-byte keys (byte order, equal keys by index): a radix sort of each key's first four
 * bytes (two passes of 16 bits, a few hundred ms for 11M keys, where a typed-array sort of packed numbers
 * took seconds), then each run of keys sharing them sorted by their full bytes (runs are rare and short
 * for random ids).
 */
export function sortedOrder(b: Uint8Array, n: number): Uint32Array {
  const lead = new Uint32Array(n);
  for (let i = 0, o = 0; i < n; i++, o += 16) {
    lead[i] = ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
  }
  let order = new Uint32Array(n), next = new Uint32Array(n);
  const count = new Uint32Array(65_537);
  for (let i = 0; i < n; i++) count[(lead[i] & 0xffff) + 1]++;
  for (let d = 1; d <= 65_536; d++) count[d] += count[d - 1];
  for (let i = 0; i < n; i++) order[count[lead[i] & 0xffff]++] = i;
  count.fill(0);
  for (let i = 0; i < n; i++) count[(lead[i] >>> 16) + 1]++;
  for (let d = 1; d <= 65_536; d++) count[d] += count[d - 1];
  for (let i = 0; i < n; i++) {
    const v = order[i];
    next[count[lead[v] >>> 16]++] = v;
  }
  [order, next] = [next, order];
  const less = (i: number, j: number) => {
    for (let k = 4; k < 16; k++) {
      const d = b[i * 16 + k] - b[j * 16 + k];
      if (d) return d < 0;
    }
    return i < j;
  };
  for (let s = 0; s < n;) {
    let e = s + 1;
    while (e < n && lead[order[e]] === lead[order[s]]) e++;
    if (e - s > 16) order.set(Array.from(order.subarray(s, e)).sort((i, j) => (less(i, j) ? -1 : 1)), s);
    else {
      for (let i = s + 1; i < e; i++) {
        const v = order[i];
        let j = i - 1;
        while (j >= s && less(v, order[j])) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = v;
      }
    }
    s = e;
  }
  return order;
}
