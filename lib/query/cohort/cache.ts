/**
 * Cohorts evaluated once and kept while the data they were evaluated over is unchanged. Each question ends at
 * its own "now", so a definition's windows move with it; what the parts give (evaluate.ts) depends only on
 * their rows inside each window, so windows are cut to the parts' time range for the key: a later "now"
 * with no newer part finds the same entry. The key also names the parts read (immutable: a new part or
 * a merge has a new id), the interner's generation (visitor numbers) and the touchpoint. The raw tail is
 * added per question; when it is the same events as last time, or its new events changed nobody's
 * membership, the same membership is given back, so the masks and session facts built with its number are
 * reused too. Bounded by memory.
 */
import type { EventLoad, Source, StreamRead } from "../columns/source.ts";
import { type Membership, rowsSpan } from "../scan/ctx.ts";
import type { CohortExpr, Scope } from "../types.ts";
import type { EvBatch } from "../columns/batch.ts";
import { invalid } from "../../errors.ts";
import {
  cohortWindows,
  evaluateParts,
  membershipOf,
  PartsEvaluator,
  type PartsState,
  withWindows,
} from "./evaluate.ts";

interface Kept {
  state: PartsState;
  /** the last membership given, and the raw tail (event ids per window) it was made with */
  last: { tailIds: string[][]; membership: Membership } | null;
}

const sameTail = (a: string[][], b: string[][]) =>
  a.length === b.length &&
  a.every((ids, k) => ids.length === b[k].length && ids.every((id, j) => id === b[k][j]));

/** The same visitors in both (a visitor past the end of the bits is in as `dflt` says). */
/**
 * A cohort with a part that changes its members by 1 to 4 visitors is refused as the tools' filter (a 422):
 * its exact counts beside those without that part would tell those visitors' events (spec rule 5).
 */
function askable(m: Membership, s: Scope): Membership {
  if (!m.tellsFew || !s.guardCohort) return m;
  throw invalid(
    'cohort: one of its conditions leaves out or adds only 1 to 4 visitors (a "not" over so few, or an ' +
      "all/any part that alone decides so few), so its counts would tell those visitors apart; widen or " +
      "remove that condition",
  );
}

function sameMembers(a: Membership, b: Membership): boolean {
  if (a.dflt !== b.dflt || a.tellsFew !== b.tellsFew) return false;
  const n = Math.max(a.bits.length, b.bits.length);
  for (let v = 0; v < n; v++) {
    if ((v < a.bits.length ? a.bits[v] : a.dflt) !== (v < b.bits.length ? b.bits[v] : b.dflt)) return false;
  }
  return true;
}

/**
 * A window as the parts' rows inside it (`rowsSpan`: the first and last of their times; empty when none): a
 * window that moved past no row is the same cohort. Cut to the parts' whole range, a window starting inside
 * it (as the question's period does when "now" moves) made a new evaluation every second.
 */
function partsWindow(w: { from: number; to: number }, l: EventLoad) {
  if (!l.partSpan) return { from: 0, to: 0 };
  const rows = rowsSpan(l.batches.slice(0, l.parts), w.from, w.to);
  return rows.min <= rows.max ? { from: rows.min, to: rows.max } : { from: 0, to: 0 };
}

/**
 * Kept in the source's one budget (`Source.keep`, beside the decoded parts), each weighed at its state's
 * bytes (per condition ~4-28 bytes per visitor of the environment) and its membership.
 */
export class CohortCache {
  private weights = new Map<string, number>();
  constructor(private source: Source) {}

  /** Memory held by kept cohorts still in the budget (bytes). */
  get bytes(): number {
    let n = 0;
    for (const [key, w] of this.weights) {
      if (this.source.kept(key)) n += w;
      else this.weights.delete(key);
    }
    return n;
  }

  /**
   * The members as `membership` gives them, with the parts read one at a time and let go (`Source.stream`
   * `own`, each batch freed once added: cohort/members.ts), never held decoded together: for a period whose
   * parts do not fit the scan's budget (scan/contexts.ts). The key is the same kind, made without decoding
   * (`Source.windowRows`: index entries, and the time columns of parts an end cuts); a kept evaluation
   * reads only each window's raw tail.
   */
  /** The members of a period too large to hold (`streamed`), refused when they would tell a few apart. */
  async streamed(s: Scope, expr: CohortExpr, free: (e: EvBatch) => void): Promise<Membership> {
    return askable(await this.streamedMembers(s, expr, free), s);
  }

  /** The members for a question's scope, refused when they would tell a few apart (cohort/evaluate.ts). */
  async membership(s: Scope, expr: CohortExpr, own?: { from: number; to: number; load: EventLoad }) {
    return askable(await this.members(s, expr, own), s);
  }

  private async streamedMembers(
    s: Scope,
    expr: CohortExpr,
    free: (e: EvBatch) => void,
  ): Promise<Membership> {
    const windows = cohortWindows(expr);
    const interner = this.source.interner(s.org, s.env);
    const rows = await Promise.all(windows.map((w) => this.source.windowRows(s.org, s.env, w.from, w.to)));
    const cut = (k: number) =>
      rows[k].partIds.length && rows[k].min <= rows[k].max
        ? { from: rows[k].min, to: rows[k].max }
        : { from: 0, to: 0 };
    const at = new Map(windows.map((w, k) => [`${w.from}|${w.to}`, k]));
    const key = "cohort-streamed|" + JSON.stringify([
      s.org,
      s.env,
      s.touchpoint ?? null,
      interner.generation,
      withWindows(expr, (w) => cut(at.get(`${w.from}|${w.to}`)!)),
      rows.map((r) => r.partIds),
    ]);
    const where = { org: s.org, env: s.env, touchpoint: s.touchpoint };
    const kept = this.source.kept<Kept>(key);
    const tails: (EvBatch | null)[] = windows.map(() => null);
    let evaluator: PartsEvaluator | null = null, read: StreamRead[] = [];
    // windows one after the other (one part decoded at a time); a window read again (its parts changed
    // meanwhile) starts the evaluation over, as its first read's rows are in it
    for (let attempt = 1;; attempt++) {
      evaluator = kept ? null : new PartsEvaluator(expr, where);
      let again = false;
      read = [];
      for (const [k, w] of windows.entries()) {
        let begun = 0;
        read.push(
          await this.source.stream(s.org, s.env, w.from, w.to, {
            own: true,
            // a kept evaluation needs only the raw tail
            pick: evaluator ? undefined : () => false,
            begin: () => {
              if (begun++ && evaluator) again = true;
              tails[k] = null;
            },
            visit: (e, tail) => {
              if (tail) tails[k] = e;
              else {
                if (!again) evaluator!.add(k, e);
                free(e);
              }
            },
          }),
        );
      }
      if (!again) break;
      if (attempt >= 3) throw new Error("parts changed during each of 3 cohort evaluations; try again");
    }
    const same = read.every((r, k) => r.partIds.join() === rows[k].partIds.join());
    // the parts changed since the key was made: a kept evaluation is of the parts before (evaluated anew)
    if (kept && !same) return this.streamedMembers(s, expr, free);
    const n = interner.visitorCount;
    const state = kept?.state ?? evaluator!.finish(n);
    const tailIds = read.map((r) => r.tailIds);
    if (kept?.last && sameTail(kept.last.tailIds, tailIds)) return kept.last.membership;
    const fresh = membershipOf(expr, where, state, tails, n);
    const membership = kept?.last && sameMembers(kept.last.membership, fresh) ? kept.last.membership : fresh;
    // kept only when the parts read are those the key names (a compaction in between: evaluated, not kept)
    if (same) {
      const entry: Kept = { state, last: { tailIds, membership } };
      const weight = state.bytes + membership.bits.byteLength;
      this.source.keep(key, entry, weight);
      this.weights.set(key, weight);
    }
    return membership;
  }

  /** The members for a question's scope; `own` is the question's own load, reused for a window it covers. */
  private async members(s: Scope, expr: CohortExpr, own?: { from: number; to: number; load: EventLoad }) {
    const windows = cohortWindows(expr);
    const loads = await Promise.all(
      windows.map((w) =>
        own && own.from === w.from && own.to === w.to
          ? own.load
          : this.source.events(s.org, s.env, w.from, w.to)
      ),
    );
    // read after the loads: every visitor of their batches has a number by then
    const interner = this.source.interner(s.org, s.env);
    const cut = new Map(windows.map((w, k) => [`${w.from}|${w.to}`, partsWindow(w, loads[k])]));
    const key = "cohort|" + JSON.stringify([
      s.org,
      s.env,
      s.touchpoint ?? null,
      interner.generation,
      withWindows(expr, (w) => cut.get(`${w.from}|${w.to}`)!),
      loads.map((l) => l.partIds),
    ]);
    const tailIds = loads.map((l) => l.tailIds);
    let kept = this.source.kept<Kept>(key);
    if (kept?.last && sameTail(kept.last.tailIds, tailIds)) return kept.last.membership;
    const where = { org: s.org, env: s.env, touchpoint: s.touchpoint };
    const n = interner.visitorCount;
    kept ??= {
      state: evaluateParts(expr, where, loads.map((l) => l.batches.slice(0, l.parts)), n),
      last: null,
    };
    const tails = loads.map((l) => (l.rawRows ? l.batches[l.parts] : null));
    const fresh = membershipOf(expr, where, kept.state, tails, n);
    // new events that changed nobody's membership: the same one, so what was built with its number stays
    const membership = kept.last && sameMembers(kept.last.membership, fresh) ? kept.last.membership : fresh;
    kept.last = { tailIds, membership };
    const weight = kept.state.bytes + membership.bits.byteLength;
    this.source.keep(key, kept, weight);
    this.weights.set(key, weight);
    if (this.weights.size > 64) void this.bytes; // forgets the weights of entries the budget let go
    return membership;
  }
}
