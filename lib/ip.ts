/**
 * The one address parser of the service (client addresses, geo and ASN lookups, crawler ranges, OAuth's
 * address guard). IPv4 becomes one unsigned 32-bit number; IPv6 becomes four 32-bit words, most significant
 * first. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as IPv4, since that is how dual-stack servers report
 * IPv4 clients. Octets with a leading zero are refused: some software reads them as octal, so such an
 * address names different hosts to different readers.
 */
export type ParsedIp = { v: 4; n: number } | { v: 6; words: [number, number, number, number] };

/** Longest text that can be an address: a full IPv6 with an IPv4 tail, brackets and a short zone. */
const MAX_ADDRESS_CHARS = 64;

export function parseIp(input: string): ParsedIp | null {
  let s = input.trim();
  if (s.length === 0 || s.length > MAX_ADDRESS_CHARS) return null;
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (s.includes(":")) {
    const words = parseIpv6(s);
    if (!words) return null;
    if (words[0] === 0 && words[1] === 0 && words[2] === 0xffff) return { v: 4, n: words[3] };
    return { v: 6, words };
  }
  const n = parseIpv4(s);
  return n === null ? null : { v: 4, n };
}

export function parseIpv4(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === "0")) return null;
    const b = Number(p);
    if (b > 255) return null;
    n = n * 256 + b;
  }
  return n;
}

export function formatIpv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function parseIpv6(s: string): [number, number, number, number] | null {
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i];
      if (i === pieces.length - 1 && p.includes(".")) {
        const v4 = parseIpv4(p); // embedded IPv4 in the last two groups
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    all = [...head, ...new Array(missing).fill(0), ...tail];
  } else all = head;
  if (all.length !== 8) return null;
  const w = (i: number) => ((all[i] << 16) | all[i + 1]) >>> 0;
  return [w(0), w(2), w(4), w(6)];
}

/** An IPv6 address's 128 bits as one number (for range arithmetic). */
export function ipv6BigInt(words: readonly number[]): bigint {
  return words.reduce((n, w) => (n << 32n) | BigInt(w >>> 0), 0n);
}

function formatIpv6(w: [number, number, number, number]): string {
  const groups = w.flatMap((x) => [x >>> 16, x & 0xffff]);
  // RFC 5952: compress the longest run (two or more) of zero groups, lower case, no leading zeros.
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/**
 * The one stored form of an address: dotted IPv4 (also for IPv4-mapped IPv6), RFC 5952 IPv6, no brackets,
 * port or zone. Null for anything else and for the unspecified addresses, which name no client.
 */
export function canonicalIp(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  let s = raw.trim();
  const bracketed = s.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) s = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":")); // 1.2.3.4:5678
  const p = parseIp(s);
  if (!p) return null;
  if (p.v === 4) return p.n === 0 ? null : formatIpv4(p.n);
  if (p.words.every((x) => x === 0)) return null;
  return formatIpv6(p.words);
}
