/**
 * Decides who a crawler really is from its address. The vendor's own checks run first (published list,
 * then reverse DNS); only when they fail is the address tested against CDN edge lists, because Googlebot,
 * Bingbot, OpenAI and others crawl from the same big cloud networks the CDNs use.
 *   verified      the address passed the vendor's check
 *   spoofed       the vendor documents a check and the address failed it
 *   unverifiable  no address, a non-public address (a proxy's: lib/crawl/public_address.ts), an address on a
 *                 CDN edge, or a vendor that documents no usable check
 */
import type { Deps } from "../deps.ts";
import type { VerificationRecord } from "../store/records.ts";
import { catalogEntry } from "./classify.ts";
import { type ParsedIp, parseIp } from "./cidr.ts";
import { notPublicReason } from "./public_address.ts";
import { RangeRegistry } from "./ranges/registry.ts";
import { ReverseDnsChecker } from "./rdns.ts";
import type { CatalogEntry } from "./types.ts";

export type VerifyOutcome = Omit<VerificationRecord, "checked_at">;

/** Whether a check can ever run for this crawler; if not, a hit is unverifiable at arrival. */
export function hasCheck(entry: CatalogEntry | null, registry?: RangeRegistry): boolean {
  if (!entry) return false;
  if (entry.verify.rdns.length > 0) return true;
  return entry.verify.lists.some((id) => (registry ? registry.get(id).size > 0 : true));
}

/**
 * How checking an automated visitor starts at arrival: with no address, a non-public one (a proxy's, as
 * `verify` answers it later), or for an agent whose vendor documents no check, the outcome is known now
 * (unverifiable); otherwise `verifyToken` names the crawler a pending verification checks later.
 */
export function arrivalVerification(
  token: string | null,
  ip: string | null,
  now: number,
): { verifyToken: string | null; outcome: VerificationRecord | null } {
  const entry = catalogEntry(token ?? "unknown");
  const notPublic = notPublicReason(ip);
  if (ip && !notPublic && hasCheck(entry)) return { verifyToken: token, outcome: null };
  const reason = !ip ? "no address" : notPublic ?? (entry ? "vendor documents no check" : "unknown vendor");
  return { verifyToken: null, outcome: { outcome: "unverifiable", method: "none", reason, checked_at: now } };
}

/**
 * A check that would judge a hit spoofed on DNS answers that came back empty (`RdnsAnswer.empty`): a failing
 * resolver answers so too, so the job asks again and judges only once the answer has stayed empty a while
 * (lib/jobs/verify.ts `EMPTY_DNS_SETTLE_MS`). `outcome` is the judgement then.
 */
export class NotYetJudged extends Error {
  constructor(readonly outcome: VerifyOutcome) {
    super(`not judged yet: ${outcome.reason}`);
  }
}

export class Verifier {
  readonly ranges = new RangeRegistry();
  readonly rdns: ReverseDnsChecker;
  constructor(private deps: Deps) {
    this.rdns = new ReverseDnsChecker(deps.dns);
  }

  async verify(token: string, ip: string | null): Promise<VerifyOutcome> {
    if (!ip) return { outcome: "unverifiable", method: "none", reason: "no address" };
    const parsed = parseIp(ip);
    if (!parsed) return { outcome: "unverifiable", method: "none", reason: "no valid address" };
    const notPublic = notPublicReason(ip);
    if (notPublic) return { outcome: "unverifiable", method: "none", reason: notPublic };
    const entry = catalogEntry(token);
    if (!entry) return { outcome: "unverifiable", method: "none", reason: "unknown vendor" };
    await this.ranges.syncFromKv(this.deps.kv, this.deps.clock.now());
    const lists = entry.verify.lists.filter((id) => this.ranges.get(id).size > 0);
    if (lists.length === 0 && entry.verify.rdns.length === 0) {
      return { outcome: "unverifiable", method: "none", reason: "vendor documents no check" };
    }
    const listed = this.#inPublishedList(entry, parsed);
    if (listed) return listed;
    let rdnsReason = "", empty = false;
    if (entry.verify.rdns.length > 0) {
      const r = await this.rdns.check(
        token,
        ip,
        entry.verify.rdns,
        entry.verify.forward,
        this.deps.clock.now(),
      );
      if (r.confirmed) return { outcome: "verified", method: "reverse_dns", reason: r.reason };
      rdnsReason = r.reason;
      empty = r.empty === true;
    }
    const cdn = this.ranges.cdnEdge(parsed);
    if (cdn) return { outcome: "unverifiable", method: "none", reason: `address is a CDN edge (${cdn})` };
    const method = entry.verify.rdns.length > 0 ? "reverse_dns" : "ip_list";
    const reason = [lists.length ? "not in the vendor's published list" : "", rdnsReason].filter(Boolean)
      .join("; ");
    if (empty) throw new NotYetJudged({ outcome: "spoofed", method, reason });
    return { outcome: "spoofed", method, reason };
  }

  /**
   * The first step of verify() alone, for ingest: `verified` when the address is in one of the vendor's
   * published lists as last synced, else null (the queue then runs every step). No DNS, no wait.
   */
  listedOutcome(token: string, ip: string): VerifyOutcome | null {
    const parsed = parseIp(ip), entry = catalogEntry(token);
    return parsed && entry ? this.#inPublishedList(entry, parsed) : null;
  }

  #inPublishedList(entry: CatalogEntry, ip: ParsedIp): VerifyOutcome | null {
    for (const id of entry.verify.lists) {
      if (this.ranges.get(id).has(ip)) return { outcome: "verified", method: "ip_list", reason: `in ${id}` };
    }
    return null;
  }
}

/**
 * The process's verifier: it holds the published lists as last synced and the DNS answers, so createContext
 * (lib/context.ts) builds one and the ingest path and the verification jobs are handed it.
 */
export function createVerifier(deps: Deps): Verifier {
  return new Verifier(deps);
}
