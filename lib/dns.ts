/** The DNS lookups crawler and domain verification need. Production: Deno.resolveDns; tests: a fake. */
export interface Dns {
  reverse(ip: string): Promise<string[]>;
  forward(name: string): Promise<string[]>; // A and AAAA
  txt(name: string): Promise<string[]>; // each TXT record, its strings joined
}

/**
 * "No such name / no record" gives no records; a timeout or a missing resolver throws. Deno 2.9 also reports
 * a resolver's SERVFAIL and REFUSED as NotFound, so an empty answer is not proof: crawler verification asks
 * again before judging on one (lib/jobs/verify.ts EMPTY_DNS_SETTLE_MS).
 */
async function records(name: string, type: "PTR" | "A" | "AAAA"): Promise<string[]> {
  try {
    return await Deno.resolveDns(name, type);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

async function txtRecords(name: string): Promise<string[]> {
  try {
    return (await Deno.resolveDns(name, "TXT")).map((parts) => parts.join(""));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/** Production DNS through Deno.resolveDns. */
export const systemDns: Dns = {
  reverse: (ip) => records(reverseName(ip), "PTR"),
  async forward(name) {
    const [a, aaaa] = await Promise.all([records(name, "A"), records(name, "AAAA")]);
    return [...a, ...aaaa];
  },
  txt: txtRecords,
};

/** 1.2.3.4 → 4.3.2.1.in-addr.arpa; IPv6 → nibble form under ip6.arpa. */
export function reverseName(ip: string): string {
  if (ip.includes(".")) return ip.split(".").reverse().join(".") + ".in-addr.arpa";
  const [head, tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const nibbles = groups.map((g) => g.padStart(4, "0")).join("").split("");
  return nibbles.reverse().join(".") + ".ip6.arpa";
}
