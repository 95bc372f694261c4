/**
 * Funnels without holding the period: when its parts would not fit the scan's budget, they are read one at
 * a time and only the rows matching a step are kept, as numbers (unit, order, step bits, split value: 33
 * bytes a row). They are then ordered unit by unit (a counting sort by unit number, each unit's rows by
 * receive time, device time, number) and walked as `funnel` walks them. The same answer as the scan over all
 * batches (tests/lib/query/funnel_stream_test.ts).
 */
import { eventView } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import type { FunnelOptions, FunnelResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { funnel } from "./funnel.ts";
import { columnFunnel } from "./funnel_column.ts";
import { StepRows, walkStepRows } from "./step_rows.ts";
import { stepBits } from "./steps.ts";

/**
 * A funnel streamed when the period's parts would not fit the budget (from their step columns when it can),
 * else by the scan.
 */
export async function scanFunnel(
  scans: ScanContexts,
  s: Scope,
  o: FunnelOptions,
  kv: Deno.Kv,
): Promise<FunnelResult> {
  if (!(await scans.streams(s, o.steps.flatMap((st) => st.filters ?? [])))) {
    return funnel(await scans.of(s), o);
  }
  // the parts' step columns when every part has one and they hold what the steps ask, else the parts
  return (await columnFunnel(scans, s, o, kv)) ?? streamFunnel(scans, s, o);
}

export async function streamFunnel(scans: ScanContexts, s: Scope, o: FunnelOptions): Promise<FunnelResult> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const byVisitor = o.by !== "session";
  let rows = new StepRows(), splitIds = new Map<string | null, number>(), splitValues: (string | null)[] = [];
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => {
      rows.free();
      rows = new StepRows();
      splitIds = new Map();
      splitValues = [];
    },
    visit: (e) => {
      const c = makeCtx([e], s, interner.visitorCount, interner.sessionCount);
      const bits = stepBits(c, o.steps)[0], human = c.human[0], tr = eventView(e, "traffic").codes;
      const sv = o.split ? eventView(e, o.split.field) : null;
      const splitOf = sv
        ? Int32Array.from(sv.values, (v) => {
          let id = splitIds.get(v);
          if (id === undefined) {
            splitIds.set(v, id = splitValues.length);
            splitValues.push(v);
          }
          return id;
        })
        : null;
      const units = byVisitor ? e.vis : e.ses, t = e.t;
      let dt: Float64Array | null = null, seq: Float64Array | null = null;
      for (let i = 0; i < e.n; i++) {
        if (!bits[i] || (byVisitor && !human[tr[i]])) continue;
        dt ??= e.dt;
        seq ??= e.seq;
        const split = splitOf ? splitOf[sv!.codes.length ? sv!.codes[i] : 0] : 0;
        rows.push(t[i], dt[i], seq[i], units[i], bits[i], split);
      }
    },
  });
  const answer = walkStepRows(rows, o, splitValues);
  rows.free();
  return answer;
}
