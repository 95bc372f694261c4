/** robots.txt violations and spoofed crawler agents, from behavior_crawler_access. */
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, num } from "./common.ts";

const pct = (x: number) => `${Math.round(x * 100)}%`;

export function crawlerAccessFindings(c: FindingContext, access: Json): Finding[] {
  const tp = c.touchpoint.id;
  const period = c.period.period;
  const out: Finding[] = [];
  const rv = THRESHOLDS.robots_violations;
  const violations = ((access.robots_violations?.crawlers ?? []) as Json[])
    .filter((v) => v.requests >= rv.min_requests)
    .sort((a, b) => b.requests - a.requests).slice(0, rv.max);
  for (const v of violations) {
    const who = v.vendor ? `${v.crawler} (${v.vendor})` : v.crawler;
    const example = v.example_pages?.length ? `, e.g. ${v.example_pages.slice(0, 2).join(", ")}` : "";
    out.push({
      kind: "robots_violation",
      claim:
        `${who} read ${num(v.pages)} page${v.pages === 1 ? "" : "s"} that robots.txt disallowed at the ` +
        `time: ${num(v.requests)} requests from verified addresses${example}.`,
      numbers: { crawler: v.crawler, requests: v.requests, pages: v.pages },
      weight: v.requests,
      reproduce: [call("behavior_crawler_access", { touchpoint: tp, period, crawler: v.crawler })],
    });
  }
  const sp = THRESHOLDS.spoofed;
  const spoofed = ((access.spoofed_agents ?? []) as Json[])
    .filter((s) => s.spoofed_requests >= sp.min_requests)
    .sort((a, b) => b.spoofed_requests - a.spoofed_requests).slice(0, sp.max);
  for (const s of spoofed) {
    out.push({
      kind: "spoofed_agent",
      claim: `${num(s.spoofed_requests)} requests claimed to be ${s.crawler} from addresses that failed ${
        s.vendor ? `${s.vendor}'s` : "the vendor's"
      } check${s.share !== null ? ` (${pct(s.share)} of requests under that name)` : ""}.`,
      numbers: { crawler: s.crawler, spoofed_requests: s.spoofed_requests, share: s.share },
      weight: s.spoofed_requests,
      reproduce: [call("behavior_crawler_access", { touchpoint: tp, period, crawler: s.crawler })],
    });
  }
  return out;
}
