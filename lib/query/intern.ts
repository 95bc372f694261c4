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

/** A set of byte strings, each with a number (its insertion index). */
class ByteTable {
  private buf = new Uint8Array(1 << 16);
  private used = 0;
  private off: number[] = [0];
  private first = new Map<number, number>(); // hash → first number with it
  private next: number[] = []; // number → next number with the same hash, or -1
  readonly tag: number[] = []; // number → caller's tag (the owning visitor of a session)

  get size(): number {
    return this.next.length;
  }

  private equal(id: number, b: Uint8Array, s: number, e: number): boolean {
    const o = this.off[id], len = this.off[id + 1] - o;
    if (len !== e - s) return false;
    for (let i = 0; i < len; i++) if (this.buf[o + i] !== b[s + i]) return false;
    return true;
  }

  /** The number of bytes b[s..e) under tag, added when new. */
  intern(b: Uint8Array, s: number, e: number, tag: number): number {
    const h = fnv(b, s, e, tag);
    let id = this.first.get(h) ?? -1, last = -1;
    while (id >= 0) {
      if (this.tag[id] === tag && this.equal(id, b, s, e)) return id;
      last = id;
      id = this.next[id];
    }
    const n = this.next.length;
    if (this.used + (e - s) > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.used + (e - s)));
      grown.set(this.buf.subarray(0, this.used));
      this.buf = grown;
    }
    this.buf.set(b.subarray(s, e), this.used);
    this.used += e - s;
    this.off.push(this.used);
    this.next.push(-1);
    this.tag.push(tag);
    if (last >= 0) this.next[last] = n;
    else this.first.set(h, n);
    return n;
  }

  get bytes(): number {
    return this.buf.length + 16 * this.next.length;
  }

  /** Byte order of two numbers' strings (UTF-8 byte order is code point order, as parts sort ids). */
  compare(a: number, b: number): number {
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
