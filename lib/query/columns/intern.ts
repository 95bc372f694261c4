/**
 * Process-wide numbers for visitors and sessions, so one visitor has one number in every part. Keys are
 * UTF-8 bytes, hashed (FNV-1a) and verified byte for byte, so parts never turn their (large) anonymous-id
 * and session-id dictionaries into strings: on a million events that is most of a cold query's time.
 */
const enc = new TextEncoder();

function fnv(b: Uint8Array, s: number, e: number, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], 16777619);
  return h >>> 0;
}

/**
 * A canonical lowercase UUID (8-4-4-4-12 hex digits, what clients' anonymous and session ids mostly are)
 * packed into 16 bytes: 36 bytes stored as 16. Hex digits '0'-'9' sort before 'a'-'f' and the dashes stand
 * at the same places in every UUID, so two packed UUIDs compare as their strings do.
 */
const DASHES = [8, 13, 18, 23];
const nibble = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1);

/** Packs b[s..e) into out[0..16) when it is a canonical lowercase UUID; false otherwise. */
function packUuid(b: Uint8Array, s: number, e: number, out: Uint8Array): boolean {
  if (e - s !== 36 || b[s + 8] !== 45 || b[s + 13] !== 45 || b[s + 18] !== 45 || b[s + 23] !== 45) {
    return false;
  }
  let k = 0;
  for (let i = s; i < e;) {
    if (b[i] === 45) {
      i++;
      continue;
    }
    const hi = nibble(b[i]), lo = nibble(b[i + 1]);
    if (hi < 0 || lo < 0 || b[i + 1] === 45) return false;
    out[k++] = (hi << 4) | lo;
    i += 2;
  }
  return k === 16;
}

/** The 36 bytes of a packed UUID (to compare it with an id stored as it came). */
function unpackUuid(b: Uint8Array, s: number, out: Uint8Array): void {
  const hex = (x: number) => (x < 10 ? 48 + x : 87 + x);
  let j = 0;
  for (let k = 0; k < 16; k++) {
    if (DASHES.includes(j)) out[j++] = 45;
    out[j++] = hex(b[s + k] >> 4);
    out[j++] = hex(b[s + k] & 15);
  }
}

/**
 * A set of byte strings, each with a number (its insertion index): open addressing over typed arrays, kept
 * small because it holds every visitor and session a process has read (at 10M events ~1M visitors and 1.7M
 * sessions): UUIDs stored packed, slots at most half full, a tag (the owning visitor of a session) only where
 * asked for, a sort prefix only where the order is asked for. About 37 bytes an id (it was ~100).
 */
class ByteTable {
  // small to start with (an environment with few visitors holds little: the budget counts it, see source.ts)
  private buf = new Uint8Array(1024);
  private used = 0;
  private count = 0;
  private off = new Int32Array(65); // number k's bytes: buf[off[k] .. off[k + 1])
  private hashes = new Uint32Array(64);
  private packed = new Uint8Array(64); // 1: stored as a packed UUID
  private tags: Int32Array | null; // number → caller's tag
  private prefix: Uint32Array | null; // first 4 stored bytes, big-endian: most comparisons end here
  private slots = new Int32Array(128).fill(-1); // hash slot → number, -1 empty
  private key = new Uint8Array(16);
  private wide = new Uint8Array(36);

  constructor(o: { tagged: boolean; ordered: boolean }) {
    this.tags = o.tagged ? new Int32Array(64) : null;
    this.prefix = o.ordered ? new Uint32Array(64) : null;
  }

  get size(): number {
    return this.count;
  }

  /** Memory held: every array at its length. */
  get bytes(): number {
    return this.buf.byteLength + this.off.byteLength + this.hashes.byteLength + this.packed.byteLength +
      (this.tags?.byteLength ?? 0) + (this.prefix?.byteLength ?? 0) + this.slots.byteLength;
  }

  private equal(id: number, b: Uint8Array, s: number, e: number): boolean {
    const o = this.off[id], len = this.off[id + 1] - o;
    if (len !== e - s) return false;
    const buf = this.buf;
    for (let i = 0; i < len; i++) if (buf[o + i] !== b[s + i]) return false;
    return true;
  }

  private grow() {
    const cap = this.hashes.length * 2;
    const more = <T extends Int32Array | Uint32Array | Uint8Array>(a: T, n: number): T => {
      const x = new (a.constructor as { new (n: number): T })(n);
      x.set(a);
      return x;
    };
    this.off = more(this.off, cap + 1);
    this.hashes = more(this.hashes, cap);
    this.packed = more(this.packed, cap);
    if (this.tags) this.tags = more(this.tags, cap);
    if (this.prefix) this.prefix = more(this.prefix, cap);
    this.slots = new Int32Array(0); // the old slots go before the new ones are made
    const slots = new Int32Array(cap * 2).fill(-1), mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let j = this.hashes[id] & mask;
      while (slots[j] >= 0) j = (j + 1) & mask;
      slots[j] = id;
    }
    this.slots = slots;
  }

  /** The number of bytes b[s..e) under tag, added when new. */
  intern(b: Uint8Array, s: number, e: number, tag: number): number {
    let flag = 0;
    if (packUuid(b, s, e, this.key)) {
      b = this.key;
      s = 0;
      e = 16;
      flag = 1;
    }
    const h = fnv(b, s, e, tag ^ (flag ? 0x5bd1e995 : 0));
    if (this.count + 1 >= this.hashes.length) this.grow();
    const slots = this.slots, mask = slots.length - 1, tags = this.tags;
    let j = h & mask;
    for (let id = slots[j]; id >= 0; id = slots[j = (j + 1) & mask]) {
      if (
        this.hashes[id] === h && this.packed[id] === flag && (!tags || tags[id] === tag) &&
        this.equal(id, b, s, e)
      ) return id;
    }
    const n = this.count, len = e - s;
    if (this.used + len > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.used + len));
      grown.set(this.buf.subarray(0, this.used));
      this.buf = grown;
    }
    const buf = this.buf, at = this.used;
    for (let i = 0; i < len; i++) buf[at + i] = b[s + i];
    this.used += len;
    this.off[n + 1] = this.used;
    this.hashes[n] = h;
    this.packed[n] = flag;
    if (tags) tags[n] = tag;
    if (this.prefix) {
      let p = 0;
      for (let i = 0; i < 4; i++) p = p * 256 + (i < len ? b[s + i] : 0);
      this.prefix[n] = p;
    }
    slots[j] = n;
    this.count = n + 1;
    return n;
  }

  /** Byte order of two numbers' strings (UTF-8 byte order is code point order, as parts sort ids). */
  compare(a: number, b: number): number {
    const prefix = this.prefix!;
    let buf = this.buf, bufB = this.buf;
    let i = this.off[a], j = this.off[b];
    let ie = this.off[a + 1], je = this.off[b + 1];
    if (this.packed[a] === this.packed[b]) {
      const pa = prefix[a], pb = prefix[b];
      if (pa !== pb) return pa < pb ? -1 : 1;
    } else {
      // one packed UUID, one id stored as it came (rare): the UUID's string is compared
      const wide = this.wide;
      if (this.packed[a]) {
        unpackUuid(buf, i, wide);
        buf = wide;
        i = 0;
        ie = 36;
      } else {
        unpackUuid(bufB, j, wide);
        bufB = wide;
        j = 0;
        je = 36;
      }
    }
    for (; i < ie && j < je; i++, j++) if (buf[i] !== bufB[j]) return buf[i] - bufB[j];
    return (ie - i) - (je - j);
  }
}

/** Values of one field, numbered process-wide (so a group number means the same value in every batch). */
export class ValueIds {
  readonly ids = new Map<string | null, number>();
  readonly values: (string | null)[] = [];
  id(v: string | null): number {
    let id = this.ids.get(v);
    if (id === undefined) {
      this.ids.set(v, id = this.values.length);
      this.values.push(v);
    }
    return id;
  }
}

export class Interner {
  private visitorTable = new ByteTable({ tagged: false, ordered: true });
  private sessionTable = new ByteTable({ tagged: true, ordered: false });
  private fields = new Map<string, ValueIds>();
  generation = 0;

  /** The process-wide numbering of a field's values (breakdowns group by these numbers). */
  valueIds(field: string): ValueIds {
    let f = this.fields.get(field);
    if (!f) this.fields.set(field, f = new ValueIds());
    return f;
  }

  get visitorCount(): number {
    return this.visitorTable.size;
  }
  get sessionCount(): number {
    return this.sessionTable.size;
  }
  /** Memory the numbering holds (its visitors' and sessions' tables), for the budget that counts it. */
  get bytes(): number {
    return this.visitorTable.bytes + this.sessionTable.bytes;
  }
  /** Order of two visitors' anonymous ids (the order rows of a part are sorted in). */
  compareVisitors(a: number, b: number): number {
    return this.visitorTable.compare(a, b);
  }
  /** A visitor's number from the UTF-8 bytes of its anonymous id. */
  visBytes(b: Uint8Array, s: number, e: number): number {
    return this.visitorTable.intern(b, s, e, 0);
  }
  /** A session's number from its id's bytes: sessions are their visitor's own, whatever ids clients send. */
  sesBytes(v: number, b: Uint8Array, s: number, e: number): number {
    return this.sessionTable.intern(b, s, e, v);
  }
  vis(id: string): number {
    const b = enc.encode(id);
    return this.visBytes(b, 0, b.length);
  }
  ses(v: number, id: string): number {
    const b = enc.encode(id);
    return this.sesBytes(v, b, 0, b.length);
  }
}
