/**
 * Reverse DNS with forward confirmation: the address's PTR name must match one of the vendor's name rules,
 * and that name must resolve back to the same address (Baidu documents a reverse-only check).
 * Answers are cached in memory per (crawler, address) with an expiry; nothing here is persisted.
 */
import { remember } from "../lru.ts";
import type { Dns } from "../dns.ts";
import { parseIp } from "./cidr.ts";

export const RDNS_CACHE_MS = 60 * 60_000;
export const RDNS_CACHE_MAX = 10_000;

/**
 * An empty answer is kept this long only: a resolver failing (SERVFAIL, REFUSED) reaches Deno as "no records",
 * like a name that has none, so the same lookup is asked again at the next sweep (lib/jobs/verify.ts).
 */
export const RDNS_EMPTY_CACHE_MS = 60_000;

export interface RdnsAnswer {
  confirmed: boolean;
  reason: string;
  /**
   * No record came back (no PTR name, or the vendor's name resolves to no address): what a failing resolver
   * also gives. Not proof; judged only once it has lasted (lib/crawl/verify.ts `NotYetJudged`).
   */
  empty?: true;
}

/** "crawl-*.googlebot.com" matches crawl-66-249-66-1.googlebot.com; "search.msn.com" matches itself and subdomains. */
export function nameMatches(name: string, rule: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, "");
  if (rule.includes("*")) {
    const re = new RegExp(
      "^" + rule.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[a-z0-9-]+") + "$",
    );
    return re.test(n);
  }
  return n === rule || n.endsWith("." + rule);
}

function sameAddress(a: string, b: string): boolean {
  const x = parseIp(a), y = parseIp(b);
  if (!x || !y || x.v !== y.v) return false;
  return x.v === 4 ? x.n === (y as typeof x).n : x.words.every((w, i) => w === (y as typeof x).words[i]);
}

export const DNS_TIMEOUT_MS = 5_000;

/** Rejects when a lookup takes too long; the caller's job is retried later instead of judging on no answer. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup took over ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export class ReverseDnsChecker {
  #cache = new Map<string, { answer: RdnsAnswer; until: number }>();
  constructor(private dns: Dns, private timeoutMs = DNS_TIMEOUT_MS) {}

  async check(
    token: string,
    ip: string,
    rules: string[],
    forward: boolean,
    now: number,
  ): Promise<RdnsAnswer> {
    const id = `${token}|${ip}`;
    const hit = this.#cache.get(id);
    if (hit && hit.until > now) return hit.answer;
    const answer = await this.#lookup(ip, rules, forward);
    const keep = answer.empty ? RDNS_EMPTY_CACHE_MS : RDNS_CACHE_MS;
    remember(this.#cache, id, { answer, until: now + keep }, RDNS_CACHE_MAX);
    return answer;
  }

  get size(): number {
    return this.#cache.size;
  }

  async #lookup(ip: string, rules: string[], forward: boolean): Promise<RdnsAnswer> {
    const names = await withTimeout(this.dns.reverse(ip), this.timeoutMs);
    if (names.length === 0) return { confirmed: false, reason: "no PTR record", empty: true };
    const matching = names.filter((n) => rules.some((r) => nameMatches(n, r)));
    if (matching.length === 0) return { confirmed: false, reason: "PTR name is not the vendor's" };
    if (!forward) return { confirmed: true, reason: "PTR name is the vendor's (reverse-only check)" };
    let addresses = 0;
    for (const name of matching) {
      const addrs = await withTimeout(this.dns.forward(name), this.timeoutMs);
      if (addrs.some((a) => sameAddress(a, ip))) {
        return { confirmed: true, reason: "PTR name confirmed by forward lookup" };
      }
      addresses += addrs.length;
    }
    if (addresses === 0) return { confirmed: false, reason: "PTR name resolves to no address", empty: true };
    return { confirmed: false, reason: "PTR name does not resolve back to the address" };
  }
}
