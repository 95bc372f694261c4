/**
 * Per-session facts of a scope: pageviews, first and last time, entry and exit pageview, interaction; and
 * from them, which sessions are engaged. Those of the parts are kept; a raw tail is added to a copy.
 */
import { remember } from "../../lru.ts";
import type { EvBatch } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx, SessionFacts } from "./ctx.ts";
import { isEngagedSession, PASSIVE_EVENTS } from "./engaged.ts";

const before = (a: EvBatch, i: number, b: EvBatch, j: number) =>
  a.t[i] < b.t[j] ||
  (a.t[i] === b.t[j] && (a.dt[i] < b.dt[j] || (a.dt[i] === b.dt[j] && a.seq[i] < b.seq[j])));

function emptyFacts(n: number): SessionFacts {
  return {
    pv: new Int32Array(n),
    first: new Float64Array(n).fill(Infinity),
    last: new Float64Array(n).fill(-Infinity),
    entryB: new Int32Array(n).fill(-1),
    entryR: new Int32Array(n),
    exitB: new Int32Array(n).fill(-1),
    exitR: new Int32Array(n),
    act: new Uint8Array(n),
  };
}

/** The facts grown to n sessions (the raw tail may bring new ones), as a copy. */
function grownFacts(f: SessionFacts, n: number): SessionFacts {
  const g = emptyFacts(n);
  for (const k of Object.keys(g) as (keyof SessionFacts)[]) {
    (g[k] as Int32Array).set((f[k] as Int32Array).subarray(0, Math.min(n, f[k].length)));
  }
  return g;
}

/** Adds the in-scope rows of batch b to the session facts. */
function addFacts(f: SessionFacts, c: Ctx, b: number) {
  const e = c.batches[b];
  const m = c.inScope[b], bits = c.etBits[b], ev = eventView(e, "event_type"), et = ev.codes;
  const active = Uint8Array.from(ev.values, (v) => (v !== null && !PASSIVE_EVENTS.has(v) ? 1 : 0));
  for (let i = 0; i < e.n; i++) {
    if (!m[i]) continue;
    const s = e.ses[i], t = e.t[i];
    if (active[et[i]]) f.act[s] = 1;
    if (t < f.first[s]) f.first[s] = t;
    if (t > f.last[s]) f.last[s] = t;
    if (bits[et[i]] & 1) {
      f.pv[s]++;
      if (f.entryB[s] < 0 || before(e, i, c.batches[f.entryB[s]], f.entryR[s])) {
        f.entryB[s] = b;
        f.entryR[s] = i;
      }
      if (f.exitB[s] < 0 || !before(e, i, c.batches[f.exitB[s]], f.exitR[s])) {
        f.exitB[s] = b;
        f.exitR[s] = i;
      }
    }
  }
}

/** Per-session facts of the scope: those of the parts are kept, the raw tail's rows are added to a copy. */
export function sessionFacts(c: Ctx): SessionFacts {
  if (c.sess) return c.sess;
  const parts = c.batches.length - (c.tail ? 1 : 0);
  let f = c.memo?.facts.get(c.scopeKey);
  if (!f) {
    f = emptyFacts(c.nSes);
    for (let b = 0; b < parts; b++) addFacts(f, c, b);
    if (c.memo) {
      remember(c.memo.facts, c.scopeKey, f, 4);
    }
  }
  if (c.tail) {
    f = grownFacts(f, c.nSes);
    addFacts(f, c, parts);
  }
  return c.sess = f;
}

/** The page of a session's entry or exit pageview, or null. */
export function sessionPage(c: Ctx, s: number, which: "entry_page" | "exit_page"): string | null {
  const f = sessionFacts(c);
  const b = which === "entry_page" ? f.entryB[s] : f.exitB[s];
  if (b < 0) return null;
  const r = which === "entry_page" ? f.entryR[s] : f.exitR[s];
  const v = eventView(c.batches[b], "page");
  return v.values[v.codes[r]];
}

/** Engaged sessions (engaged.ts) from the session facts of the scope. */
export function engagedSessions(c: Ctx, f: SessionFacts): Uint8Array {
  const out = new Uint8Array(c.nSes);
  for (let s = 0; s < out.length; s++) {
    if (f.first[s] <= f.last[s] && isEngagedSession(f.last[s] - f.first[s], f.pv[s], f.act[s] === 1)) {
      out[s] = 1;
    }
  }
  return out;
}
