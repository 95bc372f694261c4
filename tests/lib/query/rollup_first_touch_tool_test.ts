/**
 * behavior_explain_change through HTTP on a site whose parts do not fit the part cache (a tiny one): its
 * attribution comes from the session facts' first events (lib/query/rollup/first_touch.ts) and every metric's
 * answer is still what the records say (tests/tools/explain_expect.ts: each visitor or session under its
 * first event's values), with parts compacted, sessions crossing midnight and a raw tail of the last hours.
 */
import { compact } from "../../../lib/jobs/compact.ts";
import { LAST7, PREV7 } from "../../tools/expect.ts";
import { verify } from "../../tools/explain_expect.ts";
import { harness } from "../../tools/harness.ts";

Deno.test("behavior_explain_change from first events: every metric as the records say when the parts do not fit", async () => {
  const h = await harness({ visitors: 150, config: { partCacheBytes: 4096 } });
  // all but the last hours compacted into parts (the rest stays a raw tail)
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 3 * 3_600_000 });
  const asks: [string, string | undefined][] = [
    ["visitors", undefined],
    ["sessions", undefined],
    ["pageviews", undefined],
    ["bounce_rate", undefined],
    ["conversion_rate", "sign_up"],
  ];
  for (const [metric, goal] of asks) {
    const a = await h.ask("behavior_explain_change", {
      period: "last_7_days",
      metric,
      ...(goal ? { conversion_event: goal } : {}),
      segments_per_dimension: 3,
    });
    verify(a, h.site.events, LAST7, PREV7, goal);
  }
  h.close();
});
