/**
 * Address ranges (IPv4 and IPv6) as sorted, merged intervals, so a lookup is a binary search.
 * IPv4 fits a JS number; IPv6 uses bigint. IPv4-mapped IPv6 ("::ffff:1.2.3.4") is matched as IPv4.
 * Addresses are read by the one parser, lib/ip.ts.
 */
import { ipv6BigInt, type ParsedIp, parseIp } from "../ip.ts";

export { type ParsedIp, parseIp } from "../ip.ts";

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
  const lo = (ipv6BigInt(ip.words) / size) * size;
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
    return p.v === 4 ? search(this.v4, p.n) : search(this.v6, ipv6BigInt(p.words));
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
