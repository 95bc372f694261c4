/**
 * Many short strings as one UTF-8 byte array and their end offsets: a few bytes each instead of a V8
 * string object each, and no heap to scan. A string is decoded when asked for (tens of nanoseconds for
 * ASCII names).
 */
export interface StringTable {
  bytes: Uint8Array;
  ends: Uint32Array; // string i is bytes[ends[i - 1] ?? 0, ends[i])
}

const decoder = new TextDecoder();

export function stringTable(strings: readonly string[]): StringTable {
  const encoder = new TextEncoder();
  const parts = strings.map((s) => encoder.encode(s));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => {
    bytes.set(p, at);
    ends[i] = at += p.length;
  });
  return { bytes, ends };
}

export function stringAt(t: StringTable, i: number): string {
  if (i < 0 || i >= t.ends.length) return "";
  const from = i ? t.ends[i - 1] : 0, to = t.ends[i];
  let out = "";
  for (let k = from; k < to; k++) {
    const c = t.bytes[k];
    if (c >= 0x80 || to - from > 48) return decoder.decode(t.bytes.subarray(from, to));
    out += String.fromCharCode(c);
  }
  return out;
}
