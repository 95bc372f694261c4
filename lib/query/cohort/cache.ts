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
import type { EventLoad, Source } from "../columns/source.ts";
import { type Membership, rowsSpan } from "../scan/ctx.ts";
import type { CohortExpr, Scope } from "../types.ts";
import { cohortWindows, evaluateParts, membershipOf, type PartsState, withWindows } from "./evaluate.ts";

interface Kept {
  state: PartsState;
  /** the last membership given, and the raw tail (event ids per window) it was made with */
  last: { tailIds: string[][]; membership: Membership } | null;
}

const sameTail = (a: string[][], b: string[][]) =>
  a.length === b.length &&
  a.every((ids, k) => ids.length === b[k].length && ids.every((id, j) => id === b[k][j]));

/** The same visitors in both (a visitor past the end of the bits is in as `dflt` says). */
function sameMembers(a: Membership, b: Membership): boolean {
  if (a.dflt !== b.dflt) return false;
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

  /** The members for a question's scope; `own` is the question's own load, reused for a window it covers. */
  async membership(s: Scope, expr: CohortExpr, own?: { from: number; to: number; load: EventLoad }) {
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
