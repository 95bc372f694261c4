/** The accumulators of one question's groups: one typed array per figure, indexed by group number. */
import type { GroupSource } from "./group_source.ts";

/** What a question needs counted beyond events, pageviews and visitors. */
export interface AccumulatorOptions {
  /** sessions, session facts, engagement, scroll depth and rage clicks too (false: a lean question) */
  full: boolean;
  /** per visitor number: 1 when the visitor has a goal event in scope (conversions), or null */
  converted: Uint8Array | null;
  /** page-leave sums and rage clicks (totals: only when a question asks for them); default true */
  detail?: boolean;
  /** breakdowns: session counts (sessions, bounces, durations, dropped events); default true */
  perSession?: boolean;
  /** engaged visitors; default true */
  engaged?: boolean;
  /** totals: entries and exits; default true */
  exits?: boolean;
  /** visitors with a matching human pageview (`viewers`); default false */
  viewers?: boolean;
  /** visitors with a matching human page-leave giving both its figures (`reporters`); default false */
  reporters?: boolean;
}

/**
 * Typed arrays of one shape in every instance, and the options as plain fields, so the loops that fill
 * them (lean_loop.ts, totals_loop.ts, full_loop.ts) stay monomorphic.
 */
export class Accumulators {
  events: Float64Array;
  pageviews: Float64Array;
  visitors: Float64Array;
  /** visitors with a matching human pageview, and the last one counted per group */
  viewers: Float64Array;
  lastViewer: Int32Array;
  /** visitors behind the page-leave means (`reporters`), and the last one counted per group */
  reporters: Float64Array;
  lastReporter: Int32Array;
  engaged: Float64Array;
  sessions: Float64Array;
  bounces: Float64Array;
  dur: Float64Array;
  engSum: Float64Array;
  engN: Float64Array;
  depthSum: Float64Array;
  depthN: Float64Array;
  exits: Float64Array;
  entries: Float64Array;
  rage: Float64Array;
  convs: Float64Array;
  /** dropped events of the group's sessions (scan/drops.ts) */
  dropped: Float64Array;
  /** the last visitor / engaged visitor / session counted in each group */
  lastVis: Int32Array;
  lastEng: Int32Array;
  lastSes: Int32Array;
  /** group * sessions + session of sessions split across batches, once counted */
  splitSeen = new Set<number>();
  readonly full: boolean;
  readonly conv: Uint8Array | null;
  readonly detail: boolean;
  readonly perSession: boolean;
  readonly wantEngaged: boolean;
  readonly wantExits: boolean;
  readonly wantViewers: boolean;
  readonly wantReporters: boolean;

  constructor(readonly gs: GroupSource, opts: AccumulatorOptions) {
    const full = this.full = opts.full;
    const conv = this.conv = opts.converted;
    this.detail = opts.detail ?? true;
    this.perSession = opts.perSession ?? true;
    this.wantEngaged = opts.engaged ?? true;
    this.wantExits = opts.exits ?? true;
    const viewers = this.wantViewers = opts.viewers ?? false;
    const n = gs.size, f = () => new Float64Array(full ? n : 0);
    this.events = new Float64Array(n);
    this.pageviews = new Float64Array(n);
    this.visitors = new Float64Array(n);
    this.viewers = new Float64Array(viewers ? n : 0);
    this.lastViewer = new Int32Array(viewers ? n : 0).fill(-1);
    const reporters = this.wantReporters = opts.reporters ?? false;
    this.reporters = new Float64Array(reporters ? n : 0);
    this.lastReporter = new Int32Array(reporters ? n : 0).fill(-1);
    this.convs = new Float64Array(conv ? n : 0);
    [this.engaged, this.sessions, this.bounces, this.dur, this.engSum, this.engN] = [
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
    ];
    [this.depthSum, this.depthN, this.exits, this.entries, this.rage] = [f(), f(), f(), f(), f()];
    this.dropped = f();
    this.lastVis = new Int32Array(n).fill(-1);
    this.lastEng = new Int32Array(full ? n : 0).fill(-1);
    this.lastSes = new Int32Array(full ? n : 0).fill(-1);
  }
}
