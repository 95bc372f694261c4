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

/** A set of byte strings, each with a number (its insertion index): open addressing over typed arrays. */
class ByteTable {
  private buf = new Uint8Array(1 << 16);
  private used = 0;
  private count = 0;
  private off = new Int32Array(1024); // number k's bytes: buf[off[k] .. off[k + 1])
  private hashes = new Uint32Array(1024);
  private tags = new Int32Array(1024); // number → caller's tag (the owning visitor of a session)
  private prefix = new Uint32Array(1024); // first 4 bytes, big-endian: most comparisons end here
  private slots = new Int32Array(4096).fill(-1); // hash slot → number, -1 empty

  get size(): number {
    return this.count;
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
    const more = <T extends Int32Array | Uint32Array>(a: T, n: number): T => {
      const x = new (a.constructor as { new (n: number): T })(n);
      x.set(a);
      return x;
    };
    this.off = more(this.off, cap + 1);
    this.hashes = more(this.hashes, cap);
    this.tags = more(this.tags, cap);
    this.prefix = more(this.prefix, cap);
    const slots = new Int32Array(cap * 4).fill(-1), mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let j = this.hashes[id] & mask;
      while (slots[j] >= 0) j = (j + 1) & mask;
      slots[j] = id;
    }
    this.slots = slots;
  }

  /** The number of bytes b[s..e) under tag, added when new. */
  intern(b: Uint8Array, s: number, e: number, tag: number): number {
    const h = fnv(b, s, e, tag);
    const slots = this.slots, mask = slots.length - 1;
    let j = h & mask;
    for (let id = slots[j]; id >= 0; id = slots[j = (j + 1) & mask]) {
      if (this.hashes[id] === h && this.tags[id] === tag && this.equal(id, b, s, e)) return id;
    }
    const n = this.count;
    if (n + 1 >= this.hashes.length) {
      this.grow();
      return this.intern(b, s, e, tag);
    }
    const len = e - s;
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
    this.tags[n] = tag;
    let p = 0;
    for (let i = 0; i < 4; i++) p = p * 256 + (i < len ? b[s + i] : 0);
    this.prefix[n] = p;
    slots[j] = n;
    this.count = n + 1;
    return n;
  }

  get bytes(): number {
    return this.buf.length + 17 * this.hashes.length;
  }

  /** Byte order of two numbers' strings (UTF-8 byte order is code point order, as parts sort ids). */
  compare(a: number, b: number): number {
    const pa = this.prefix[a], pb = this.prefix[b];
    if (pa !== pb) return pa < pb ? -1 : 1;
    const buf = this.buf;
    let i = this.off[a], j = this.off[b];
    const ie = this.off[a + 1], je = this.off[b + 1];
    for (; i < ie && j < je; i++, j++) if (buf[i] !== buf[j]) return buf[i] - buf[j];
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
  private visitorTable = new ByteTable();
  private sessionTable = new ByteTable();
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
