import type { Dns } from "./deps.ts";

/** Production DNS through Deno.resolveDns; a failed lookup answers no records. */
export const systemDns: Dns = {
  async reverse(ip) {
    try {
      return await Deno.resolveDns(reverseName(ip), "PTR");
    } catch {
      return [];
    }
  },
  async forward(name) {
    const [a, aaaa] = await Promise.all([
      Deno.resolveDns(name, "A").catch(() => [] as string[]),
      Deno.resolveDns(name, "AAAA").catch(() => [] as string[]),
    ]);
    return [...a, ...aaaa];
  },
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
