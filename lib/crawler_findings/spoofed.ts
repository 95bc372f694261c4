/**
 * Spoofed-agent findings: requests whose user agent claims a crawler that documents a check (published
 * addresses or reverse DNS) and whose address failed it, per claimed crawler, with the share of all the
 * requests under that crawler's name in the period.
 */
import type { Engine, HitScope } from "../query/api.ts";

export interface SpoofedFinding {
  crawler: string;
  vendor: string | null;
  category: string;
  spoofed_requests: number;
  /** every request under the crawler's name in the period, whatever its check said */
  requests: number;
  /** distinct pages the spoofed requests got */
  pages: number;
  first_seen_at: number;
  last_seen_at: number;
}

export async function spoofedAgents(
  engine: Engine,
  scope: HitScope,
  crawler?: string,
): Promise<SpoofedFinding[]> {
  const one = crawler ? [{ field: "crawler" as const, op: "eq" as const, value: crawler }] : [];
  const [all, spoofed] = await Promise.all([
    engine.hitsAggregate({ ...scope, filters: one }, { metrics: ["requests"], breakdown: ["crawler"] }),
    engine.hitsAggregate({
      ...scope,
      filters: [...one, { field: "verification", op: "eq", value: "spoofed" }],
    }, {
      metrics: ["requests", "pages", "first_seen_at", "last_seen_at"],
      breakdown: ["crawler", "vendor", "category"],
    }),
  ]);
  const total = new Map(all.rows.map((r) => [String(r.key.crawler), r.metrics.requests ?? 0]));
  const out = new Map<string, SpoofedFinding>();
  for (const r of spoofed.rows) {
    const c = String(r.key.crawler);
    const prev = out.get(c);
    out.set(c, {
      crawler: c,
      vendor: (r.key.vendor as string | null) ?? prev?.vendor ?? null,
      category: String(r.key.category),
      spoofed_requests: (prev?.spoofed_requests ?? 0) + (r.metrics.requests ?? 0),
      requests: total.get(c) ?? 0,
      pages: Math.max(prev?.pages ?? 0, r.metrics.pages ?? 0),
      first_seen_at: Math.min(prev?.first_seen_at ?? Infinity, r.metrics.first_seen_at ?? Infinity),
      last_seen_at: Math.max(prev?.last_seen_at ?? -Infinity, r.metrics.last_seen_at ?? -Infinity),
    });
  }
  return [...out.values()].sort((a, b) =>
    b.spoofed_requests - a.spoofed_requests || a.crawler.localeCompare(b.crawler)
  );
}
