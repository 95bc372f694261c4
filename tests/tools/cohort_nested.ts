/** Cohort members planted for the tests of rule 5 across figures of one answer (cohort_nested*_test.ts). */
import type { z } from "zod";
import type { StoredEvent } from "../../lib/store/records.ts";
import { TOOLS } from "../../tools/registry.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { NOW } from "./generate.ts";
import { harness } from "./harness.ts";

export type Json = Record<string, unknown>;
export const DAY = 86_400_000;
export const few = (n: unknown) => typeof n === "number" && n > 0 && n < 5;
export const num = (x: unknown) => typeof x === "number" ? x : 0;
export const outputOf = (tool: string) => TOOLS.find((t) => t.name === tool)!.output as z.ZodType;
export const asked = { period: "last_7_days", cohort: "lookers" };

let n = 0;
/** One visit of a cohort member: a "look" on the first page, then the pages given. */
export function visit(
  t: { org: string; touchpoint: string },
  pages: string[],
  over: Partial<StoredEvent> = {},
  look: Json = {},
): StoredEvent[] {
  const v = n++;
  const at = NOW - 2 * DAY + v * 60_000;
  const base = {
    org: t.org,
    touchpoint: t.touchpoint,
    anonymous_id: `member-${v}`,
    session_id: `m-${v}`,
    ...over,
  };
  return [
    ev({ ...base, received_at: at, sequence_no: 0, event_type: "$pageview", path: pages[0] }),
    ev({
      ...base,
      received_at: at + 1_000,
      sequence_no: 1,
      event_type: "look",
      path: pages[0],
      properties: look,
    }),
    ...pages.slice(1).map((p, i) =>
      ev({
        ...base,
        received_at: at + 20_000 * (i + 1),
        sequence_no: 2 + i,
        event_type: "$pageview",
        path: p,
      })
    ),
  ];
}
export const times = (k: number, make: () => StoredEvent[]) => Array.from({ length: k }, make).flat();

export async function withCohort(
  events: (t: { org: string; touchpoint: string }) => StoredEvent[],
  fn: (h: Awaited<ReturnType<typeof harness>>) => Promise<void>,
) {
  const h = await harness({ visitors: 20 });
  try {
    await store(h.deps.kv, { events: events(h.t) });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "lookers", { kind: "event", event: "look" });
    await fn(h);
  } finally {
    h.close();
  }
}
