/**
 * Address ranges (IPv4 and IPv6) as sorted, merged intervals, so a lookup is a binary search.
 * IPv4 fits a JS number; IPv6 uses bigint. IPv4-mapped IPv6 ("::ffff:1.2.3.4") is matched as IPv4.
 */

export type ParsedIp = { v: 4; n: number } | { v: 6; n: bigint };

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseV4(s: string): number | null {
  const m = V4.exec(s);
  if (!m) return null;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i];
    if (part.length > 1 && part[0] === "0") return null; // no octal-looking octets
    const o = Number(part);
    if (o > 255) return null;
    n = n * 256 + o;
  }
  return n;
}

function parseV6(s: string): bigint | null {
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (s.length < 2 || !/^[0-9a-fA-F:.]+$/.test(s)) return null;
  if (s.includes(".")) {
    // an embedded IPv4 tail ("::ffff:1.2.3.4") becomes two hex groups
    const lastColon = s.lastIndexOf(":");
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    s = s.slice(0, lastColon + 1) + Math.floor(v4 / 65536).toString(16) + ":" + (v4 % 65536).toString(16);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 2 && halves[1] !== "" ? halves[1].split(":") : [];
  const given = head.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const groups = [...head, ...Array(8 - given).fill("0"), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

/** Parses an IPv4 or IPv6 address; IPv4-mapped IPv6 becomes IPv4. Null when it is not an address. */
export function parseIp(raw: string): ParsedIp | null {
  const s = raw.trim();
  if (s.length === 0 || s.length > 45) return null;
  const v4 = parseV4(s);
  if (v4 !== null) return { v: 4, n: v4 };
  const v6 = parseV6(s);
  if (v6 === null) return null;
  if (v6 >> 32n === 0xffffn) return { v: 4, n: Number(v6 & 0xffffffffn) };
  return { v: 6, n: v6 };
}

export const isIp = (raw: string) => parseIp(raw) !== null;

/** Parses "a.b.c.d/len", "v6::/len" or a bare address (a one-address range). */
export function parseCidr(
  raw: string,
): { v: 4; lo: number; hi: number } | { v: 6; lo: bigint; hi: bigint } | null {
  const [addr, lenRaw, extra] = raw.trim().split("/");
  if (extra !== undefined) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const max = ip.v === 4 ? 32 : 128;
  const mappedV6 = ip.v === 4 && addr.includes(":");
  let len = lenRaw === undefined ? max : Number(lenRaw);
  if (mappedV6 && lenRaw !== undefined) len -= 96;
  if (!Number.isInteger(len) || len < 0 || len > max || (lenRaw !== undefined && !/^\d+$/.test(lenRaw))) {
    return null;
  }
  if (ip.v === 4) {
    const size = 2 ** (32 - len);
    const lo = Math.floor(ip.n / size) * size;
    return { v: 4, lo, hi: lo + size - 1 };
  }
  const size = 1n << BigInt(128 - len);
  const lo = (ip.n / size) * size;
  return { v: 6, lo, hi: lo + size - 1n };
}

function mergeV4(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) {
      if (r[1] > last[1]) last[1] = r[1];
    } else out.push([r[0], r[1]]);
  }
  return out;
}

function search<T extends number | bigint>(ranges: [T, T][], n: T): boolean {
  let lo = 0, hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid];
    if (n < a) hi = mid - 1;
    else if (n > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** A set of address ranges; entries that do not parse are skipped and counted. */
export class RangeSet {
  readonly v4: [number, number][];
  readonly v6: [bigint, bigint][];
  readonly skipped: number;

  constructor(cidrs: Iterable<string>) {
    const v4: [number, number][] = [], v6: [bigint, bigint][] = [];
    let skipped = 0;
    for (const c of cidrs) {
      const r = parseCidr(c);
      if (!r) skipped++;
      else if (r.v === 4) v4.push([r.lo, r.hi]);
      else v6.push([r.lo, r.hi]);
    }
    this.v4 = mergeV4(v4);
    this.v6 = mergeV6(v6);
    this.skipped = skipped;
  }

  get size(): number {
    return this.v4.length + this.v6.length;
  }

  has(ip: string | ParsedIp): boolean {
    const p = typeof ip === "string" ? parseIp(ip) : ip;
    if (!p) return false;
    return p.v === 4 ? search(this.v4, p.n) : search(this.v6, p.n);
  }
}

function mergeV6(ranges: [bigint, bigint][]): [bigint, bigint][] {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: [bigint, bigint][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1n) {
      if (r[1] > last[1]) last[1] = r[1];
    } else out.push([r[0], r[1]]);
  }
  return out;
}
