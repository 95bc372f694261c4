/**
 * What the aggregate passes share: the session runs in visitor order with their figures and states under
 * the question's masks, and the per-session facts of the scope (empty arrays when no question needs them).
 */
import type { EvBatch } from "../columns/batch.ts";
import type { Ctx, SessionFacts } from "../scan/ctx.ts";
import { engagedSessions } from "../scan/session_facts.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import { type RunColumns, runColumns, runStates } from "./per_run.ts";
import type { Turn } from "../../turns.ts";

export interface Pass {
  batches: EvBatch[];
  masks: Uint8Array[];
  /** session runs in visitor order: run rk[p] of batch rb[p] */
  rb: Int32Array;
  rk: Int32Array;
  /** the same runs' figures and states (columns/runs.ts: all, some or no rows match) in that order */
  runs: RunColumns;
  states: Uint8Array;
  /** sessions with runs in more than one batch */
  split: Uint8Array;
  nSes: number;
  hasFacts: boolean;
  engagedS: Uint8Array;
  pvS: Int32Array;
  first: Float64Array;
  last: Float64Array;
  entryB: Int32Array;
  entryR: Int32Array;
  exitB: Int32Array;
  exitR: Int32Array;
  /** per session: dropped events (empty when no question asks for them) */
  drops: Float64Array;
}

export async function preparePass(
  c: Ctx,
  masks: Uint8Array[],
  facts: SessionFacts | null,
  drops: Float64Array | null,
  turn: Turn,
): Promise<Pass> {
  // each step walks every run or row of the period: a turn after each
  const { split, rb, rk } = visitorOrder(c);
  await turn();
  const runs = runColumns(c);
  await turn();
  const states = runStates(c, masks);
  await turn();
  const none = new Int32Array(0), noTimes = new Float64Array(0);
  return {
    batches: c.batches,
    masks,
    rb,
    rk,
    runs,
    states,
    split,
    nSes: c.nSes,
    hasFacts: facts !== null,
    engagedS: facts ? engagedSessions(c, facts) : new Uint8Array(0),
    pvS: facts?.pv ?? none,
    first: facts?.first ?? noTimes,
    last: facts?.last ?? noTimes,
    entryB: facts?.entryB ?? none,
    entryR: facts?.entryR ?? none,
    exitB: facts?.exitB ?? none,
    exitR: facts?.exitR ?? none,
    drops: drops ?? noTimes,
  };
}
