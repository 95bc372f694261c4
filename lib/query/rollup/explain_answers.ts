/**
 * Explain-a-change's answers (first_touch.ts) from the parts' first events, the raw tail's beside, one question
 * at a time, in one pass or in passes over ranges of visitor numbers (passes.ts); each answer kept per period,
 * question and raw tail.
 */
import { holdArraysOf } from "../../working_memory.ts";
import { release } from "../../parts/packed_arrays.ts";
import { inBatches } from "../../batches.ts";
import { Gone, periodKey, type RollupReader } from "./reader.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import type { AttributionOptions, AttributionResult } from "../sequence_types.ts";
import {
  firstTouch,
  firstTouchBlocker,
  type FirstUnit,
  type PageviewsOf,
  passesAdded,
  releaseFirstUnit,
  rowsInRange,
  type VisitorRange,
} from "./first_touch.ts";
import { hoursInside } from "./answer.ts";
import {
  decodeFirstIds,
  decodeFirsts,
  FIRST_IDS_SEC,
  FIRST_SEC,
  firstRowsOf,
  readSections,
  type RollupEntry,
} from "./store.ts";
import { inRanges, numbered, type Passes, passesFor } from "./passes.ts";
import { goalMarks, goalMembers } from "./goal_visitors.ts";

/** Plain aggregates (explain-a-change's pageviews per value are one), answered by the rollup source. */
export type Ask = (s: Scope, questions: AggregateOptions[]) => Promise<(AggregateResult | null)[]>;

export class ExplainAnswers {
  constructor(private r: RollupReader, private ask: Ask) {}

  /**
   * Explain-a-change's attribution (first_touch.ts) from the parts' facts and first events, the raw tail's
   * beside, and pageviews per value from the hourly rows; null when the scan must answer (firstTouchBlocker,
   * hours cut, a part without first events yet). The answer is kept per period, question and raw tail.
   */
  explain(s: Scope, o: AttributionOptions): Promise<AttributionResult | null> {
    if (firstTouchBlocker(s, o) !== null) return Promise.resolve(null);
    return this.oneAtATime(() => this.explainAlone(s, o));
  }

  /**
   * Explain-a-change's questions answered one after the other: each holds its parts' first events (~60 bytes
   * a fact row, ~40 MB inflated for a 7-day period and the previous one at 10M events) and arrays by visitor
   * number (12-16 bytes a unit), outside the budget, and the tool asks its period and the previous one
   * together: both at once, alone at 10M events, peaked 263 / 358 MB RSS against 233 / 321 one after the other.
   */
  private explaining: Promise<unknown> = Promise.resolve();
  /** Explain questions being answered now, and the most at once (tests). */
  private explainingNow = 0;
  mostExplaining = 0;
  private oneAtATime<T>(f: () => Promise<T>): Promise<T> {
    const run = async () => {
      this.mostExplaining = Math.max(this.mostExplaining, ++this.explainingNow);
      try {
        return await f();
      } finally {
        this.explainingNow--;
      }
    };
    const next = this.explaining.then(run, run);
    this.explaining = next.catch(() => {});
    return next;
  }

  private async explainAlone(s: Scope, o: AttributionOptions): Promise<AttributionResult | null> {
    const { parts, tail, all, cut } = await this.r.inPeriod(s);
    this.r.asked++;
    const traffic = new Set(s.traffic ?? ["human"]);
    let partUnits: FirstUnit[] = [];
    const pvAsks: AggregateOptions[] = o.fields.length
      ? o.fields.map((f) => ({ metrics: ["pageviews"], breakdown: [f] }))
      : [{ metrics: ["pageviews"] }];
    try {
      await this.r.prefetchEntries(parts.map((p) => p.id));
      const heads = await inBatches(parts, 8, (p) => this.r.entry(p.id));
      if (heads.some((e) => e === null || !e.secs[FIRST_SEC])) return null;
      const partInside = hoursInside(heads.map((e) => e!.head), s, cut !== "");
      if (!partInside) return null;
      const period = periodKey(parts, partInside, s, traffic);
      const tailBuilt = await this.r.tailRollup(tail, all, s, cut);
      const tailPart = tailBuilt.part;
      // the answer as a whole, kept for this period, question and raw tail (its records and numbering)
      const key = `${period}|first|${JSON.stringify(o)}|${
        tailPart ? `${this.r.stampOf(all, tailBuilt.space, cut)}|${s.from}-${s.to}` : ""
      }`;
      const keptAnswer = this.r.cache.get(key) as AttributionResult | undefined;
      this.r.lastAsked.set(key, this.r.asked);
      if (keptAnswer) return structuredClone(keptAnswer);
      const tailInside = tailPart ? hoursInside([tailPart], s)?.[0] ?? null : null;
      if (tailPart && (!tailInside || !tailPart.facts?.firsts)) return null;
      const bySession = o.unit === "session";
      const goals = o.goal ? [o.goal.event_type] : [];
      // one pass over every part's first rows, or, when they and the arrays by unit would not fit in what the
      // question may hold, passes over ranges of visitor numbers, each reading the parts again
      const space0 = await numbered(this.r, s, tailBuilt.space);
      const passes = passesFor(
        heads as RollupEntry[],
        bySession ? [FIRST_SEC, FIRST_IDS_SEC] : [FIRST_SEC],
        space0,
        (raw) => (raw[0] + (raw[1] ?? 0)) * 1.1 + space0 * 16,
      );
      // the goal's visitors, the first events and the pageviews per value read together (their KV reads and
      // decoding overlap)
      const [goalLists, units, pvs] = await Promise.all([
        Promise.all(goals.map((type) => goalMembers(this.r, parts, partInside, period, s, traffic, type))),
        passes.several ? ([] as FirstUnit[]) : this.firstUnits(parts, bySession),
        this.ask(s, pvAsks),
      ]);
      if (!units || pvs.some((r) => r === null)) return null;
      // (the parts' units are this question's own: freed once answered; the raw tail's arrays are its facts')
      partUnits = units.slice();
      const goalKept = new Map(goals.map((type, i) => [type, goalLists[i]]));
      const inside = [...partInside];
      const tailUnit: FirstUnit | null = tailPart
        ? {
          rows: firstRowsOf(tailPart.facts!, null),
          ids: { h1: tailPart.facts!.h1, h2: tailPart.facts!.h2 },
          tps: tailPart.tps,
          traffics: tailPart.traffics,
        }
        : null;
      if (tailUnit) {
        units.push(tailUnit);
        inside.push(tailInside!);
      }
      // (every goal visitor's number is inside the marks: a unit past them converted nowhere)
      const space = passes.several
        ? Math.max(passes.space, ...goalLists.map((l) => (l.length ? l[l.length - 1] + 1 : 0)))
        : Math.max(tailBuilt.space, ...units.map((u) => maxOf(u.rows.vis) + 1));
      const marks = goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
      const pageviews: PageviewsOf = { total: (pvs[0]!.totals.pageviews as number) ?? 0, by: new Map() };
      o.fields.forEach((f, k) => {
        const by = new Map<string | null, number>();
        for (const r of pvs[k]!.rows) {
          const n = (r.metrics.pageviews as number) ?? 0;
          if (n) by.set((r.key[f] ?? null) as string | null, n);
        }
        pageviews.by.set(f, by);
      });
      const goal = o.goal ? marks.get(o.goal.event_type)! : null;
      const answer = passes.several
        ? await this.inPasses(parts, tailUnit, passes, inside, s, o, goal, pageviews)
        : firstTouch(units, inside, s, o, goal, pageviews);
      if (!answer) return null;
      this.r.setKept(key, structuredClone(answer), answerBytes(answer) + key.length * 2, true);
      return answer;
    } catch (e) {
      if (this.r.gone(e)) return null;
      throw e;
    } finally {
      for (const u of partUnits) releaseFirstUnit(u);
    }
  }

  /**
   * Explain-a-change's attribution in passes over ranges of visitor numbers (the last open-ended): each reads
   * every part's first rows again, keeps its range's, and counts them as one question would; the passes'
   * answers added (`passesAdded`: a visitor, and so each of its sessions, is in one range). Null when a part
   * lost its first rows meanwhile.
   */
  private async inPasses(
    parts: { id: string }[],
    tailUnit: FirstUnit | null,
    passes: Passes,
    inside: Set<number>[],
    s: Scope,
    o: AttributionOptions,
    goal: Uint8Array | null,
    pageviews: PageviewsOf,
  ): Promise<AttributionResult | null> {
    const answers = await inRanges(passes, explainedInPasses, async (range, atOnce) => {
      const units = await this.firstUnits(parts, o.unit === "session", range, atOnce);
      if (!units) return null;
      if (tailUnit) {
        const own = rowsInRange(tailUnit, range);
        holdArraysOf(own.rows);
        holdArraysOf(own.ids);
        units.push(own);
      }
      try {
        return firstTouch(units, inside, s, o, goal, pageviews, range);
      } finally {
        for (const u of units) releaseFirstUnit(u);
      }
    });
    if (!answers) return null;
    explainedInPasses.answers++;
    return passesAdded(answers);
  }

  /**
   * Every part's first-event rows and (`ids`) their id hashes, read for this question (the answer is what is
   * kept); with `range`, only its visitors' rows (each part's others let go as it is read); null when one
   * lacks them.
   */
  private async firstUnits(
    parts: { id: string }[],
    ids: boolean,
    range: VisitorRange | null = null,
    atOnce = 4,
  ): Promise<FirstUnit[] | null> {
    const got = await inBatches(parts, atOnce, async (p) => {
      const e = await this.r.entry(p.id);
      if (!e || !e.secs[FIRST_SEC] || (ids && !e.secs[FIRST_IDS_SEC])) return null;
      const [rows, hashes] = await readSections(this.r.deps.kv, [
        { partId: p.id, entry: e, sec: FIRST_SEC },
        ...(ids ? [{ partId: p.id, entry: e, sec: FIRST_IDS_SEC }] : []),
      ]);
      if (!rows || (ids && !hashes)) throw new Gone();
      this.r.bytesRead += rows.length + (hashes?.length ?? 0);
      const unit = {
        rows: decodeFirsts(rows),
        ids: hashes ? decodeFirstIds(hashes) : null,
        tps: e.head.tps,
        traffics: e.head.traffics,
      };
      // (decoded into buffers of their own: the stored bytes are let go now; what they decoded to is this
      // question's own while it answers, lib/working_memory.ts)
      release(rows);
      release(hashes);
      holdArraysOf(unit.rows);
      holdArraysOf(unit.ids);
      if (!range) return unit;
      const mine = rowsInRange(unit, range);
      releaseFirstUnit(unit);
      holdArraysOf(mine.rows);
      holdArraysOf(mine.ids);
      return mine;
    });
    return got.some((g) => g === null) ? null : got as FirstUnit[];
  }
}

/** Explain-a-change answers given in passes over visitor ranges, and the passes (tests read them). */
export const explainedInPasses = { answers: 0, passes: 0 };

function maxOf(a: Uint32Array): number {
  let m = -1;
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
  return m;
}

/** The bytes a kept attribution answer holds (to weigh it in the cache). */
const answerBytes = (a: AttributionResult) =>
  256 + Object.values(a.by).reduce((n, rows) => n + rows.length * 120, 0);
