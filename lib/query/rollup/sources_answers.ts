/**
 * Answers of sources (sessions, visitors and conversions by first-touch fields and entry page, attribution.ts)
 * from the parts' facts and attributions, the raw tail's beside, each answer kept per period, question and raw
 * tail: from the parts' runs when every part has them (sources_from_runs.ts), else from the period's fact rows
 * joined and kept flat.
 */
import { inBatches } from "../../batches.ts";
import { periodKey, type RollupReader, unitOf } from "./reader.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import {
  answerAttribution,
  attributionJoin,
  type AttrRows,
  attrRowsBytes,
  type AttrUnit,
  flattenRows,
  sessionEntries,
  withTailRows,
} from "./attribution.ts";
import { hoursInside, type PiecesAsked } from "./answer.ts";
import type { RollupParts } from "./pieces.ts";
import { ATTR_RUNS_SEC, ATTR_SEC, decodeAttr, readSection, type RollupEntry } from "./store.ts";
import { goalMarks, goalMembers } from "./goal_visitors.ts";
import { tailAttrUnit } from "./sources_joins.ts";
import { SourcesFromRuns } from "./sources_from_runs.ts";

export class SourcesAnswers {
  private runs: SourcesFromRuns;
  constructor(private r: RollupReader) {
    this.runs = new SourcesFromRuns(r);
  }

  /**
   * Keeps an answer as a result, not a piece: pieces make room for it (an answer of a few hundred rows, refused
   * when the share was full, was counted again from ~1.75M rows every warm ask at 10M events). Its key, which
   * names every part of the period (~50 characters each), is weighed too.
   */
  private keepAnswer(key: string, a: AggregateResult) {
    this.r.setKept(key, structuredClone(a), 256 + a.rows.length * 160 + key.length * 2, true);
  }

  /**
   * Sessions, visitors and conversions by attribution fields and entry page (attribution.ts): the period's
   * parts' fact rows in scope, joined into sessions, are kept flat per period (~21 bytes a row); each question
   * counts from them with the raw tail's rows added (null answers: the scan answers).
   */
  async answer(s: Scope, os: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const none = os.map(() => null);
    const { parts, tail, all, cut } = await this.r.inPeriod(s);
    this.r.asked++;
    const goals = [...new Set(os.flatMap((o) => (o.goal ? [o.goal.event_type] : [])))];
    const needEntry = os.some((o) => o.breakdown?.includes("entry_page"));
    const traffic = new Set(s.traffic ?? ["human"]);
    let kept: AttrRows | null = null, hashes: AttrHashes | null = null;
    let answerKeys: string[] = [];
    let tailBuilt: { part: RollupParts | null; space: number } = { part: null, space: 0 };
    // each goal's visitors in the parts in scope (sorted numbers), kept per period like the rows
    const goalKept = new Map<string, Uint32Array>();
    try {
      await this.r.prefetchEntries(parts.map((p) => p.id));
      const heads = await inBatches(parts, 8, (p) => this.r.entry(p.id));
      if (heads.some((e) => e === null)) return none;
      const partInside = hoursInside(heads.map((e) => e!.head), s, cut !== "");
      if (!partInside) return none;
      const period = periodKey(parts, partInside, s, traffic);
      // the answers themselves, kept per period, question and raw tail: a warm ask of the same questions
      // counts nothing (behavior_sources' five over 1.72M rows took ~430 ms warm at 10M events)
      tailBuilt = await this.r.tailRollup(tail, all, s, cut);
      // (with rows of a raw tail or cut hours, the period's bounds too: they choose which of those rows count,
      // and the parts' hours inside, which name the period, can be the same for two periods)
      const stamp = tailBuilt.part ? `${this.r.stampOf(all, tailBuilt.space, cut)}|${s.from}-${s.to}` : "";
      answerKeys = os.map((o) =>
        `${period}|attrAnswer|${stamp}|${JSON.stringify([s.filters ?? [], s.timezone, o])}`
      );
      const hits = answerKeys.map((k) => this.r.cache.get(k) as AggregateResult | undefined);
      if (hits.every((h) => h !== undefined)) {
        for (const k of answerKeys) this.r.lastAsked.set(k, this.r.asked);
        return hits.map((h) => structuredClone(h!));
      }
      if (heads.every((e) => e!.secs[ATTR_RUNS_SEC])) {
        // every part has its runs (rollup version 10): only the sessions runs cannot give are joined
        const answers = await this.runs.answer(
          parts,
          heads as RollupEntry[],
          partInside,
          period,
          tailBuilt,
          s,
          os,
          traffic,
          needEntry,
          goals,
        );
        if (!answers) return none;
        answers.forEach((a, i) => this.keepAnswer(answerKeys[i], a));
        return answers;
      }
      const key = `${period}|attr`;
      kept = (this.r.cache.get(key) as AttrRows | undefined) ?? null;
      this.r.lastAsked.set(key, this.r.asked);
      // the rows' id hashes (kept apart: only a raw tail's sessions need them, to find theirs in the parts)
      const tailRows = tail.length > 0;
      hashes = (this.r.cache.get(`${key}|h`) as AttrHashes | undefined) ?? null;
      if (hashes) this.r.lastAsked.set(`${key}|h`, this.r.asked);
      if (!kept || (needEntry && !kept.entry) || (tailRows && !hashes)) {
        const units = await this.attrUnits(parts, needEntry);
        if (!units) return none;
        const join = attributionJoin(units, partInside, s.touchpoint, traffic, 0, true);
        const built = flattenRows(
          units,
          join,
          needEntry ? sessionEntries(join, units.map((u) => u.ends)) : null,
        );
        hashes = { h1: built.h1, h2: built.h2 };
        kept = { ...built, h1: new Uint32Array(0), h2: new Uint32Array(0) };
        this.r.setKept(key, kept, attrRowsBytes(kept), false);
        // kept too when pieces can make room (never the rows: they are what every question reads)
        const w = hashes.h1.byteLength * 2;
        if (tailRows) this.r.setKept(`${key}|h`, hashes, w, true);
      }
      for (const type of goals) {
        goalKept.set(type, await goalMembers(this.r, parts, partInside, period, s, traffic, type));
      }
    } catch (e) {
      if (this.r.gone(e)) return none;
      throw e;
    }
    let rows: AttrRows | null = kept;
    const tailPart = tailBuilt.part;
    const tailInside = tailPart ? hoursInside([tailPart], s)?.[0] ?? null : null;
    if (tailPart && !tailInside) return none;
    if (tailPart) {
      const f = tailPart.facts!;
      const unit = tailAttrUnit(tailPart);
      if (!unit) return none;
      const join = attributionJoin([unit], [tailInside!], s.touchpoint, traffic, 0, true);
      const own = flattenRows([unit], join, needEntry ? sessionEntries(join, [f.ends]) : null);
      rows = withTailRows(kept!, hashes!, own);
      if (!rows) {
        // a tail session also in the parts, its entry page asked: all joined together
        const units = await this.attrUnits(parts, true);
        if (!units) return none;
        const inside = hoursInside([...units, tailPart], s, cut !== "");
        if (!inside) return none;
        const both = [...units, unit];
        const all = attributionJoin(both, inside, s.touchpoint, traffic, 0, true);
        rows = flattenRows(both, all, sessionEntries(all, both.map((u) => u.ends)));
      }
    }
    // each goal's visitors in scope: the parts' kept ones and the raw tail's
    const marks = goalMarks(
      goals,
      goalKept,
      Math.max(rows!.visitors, tailBuilt.space),
      tailPart,
      tailInside,
      s,
      traffic,
    );
    const answers = os.map((o) =>
      answerAttribution(rows!, o.goal ? marks.get(o.goal.event_type)! : null, s, o)
    );
    answers.forEach((a, i) => this.keepAnswer(answerKeys[i], a));
    return answers;
  }

  /** Every part's facts (not kept: their flat rows are), attributions and (`ends`) entries; null: one lacks them. */
  private async attrUnits(parts: { id: string }[], ends: boolean) {
    const want: PiecesAsked = { fields: [], sets: [], facts: true, ends };
    const out: (AttrUnit & { hours: RollupParts["hours"] })[] = [];
    for (let w = 0; w < parts.length; w += 32) {
      const window = parts.slice(w, w + 32);
      const got = await inBatches(window, 4, async (p) => {
        const part = await this.r.part(p.id, want, false);
        const e = await this.r.entry(p.id);
        if (!part || !e) return null;
        const a = await this.r.piece(
          `${p.id}/attr`,
          () => readSection(this.r.deps.kv, p.id, e, ATTR_SEC),
          decodeAttr,
          (x) => x.codes.byteLength + x.multi.row.byteLength * 3 + x.tuples.length * 160,
          false,
        );
        if (!a) return null;
        return {
          ...unitOf(part),
          hours: part.hours,
          codes: a.codes,
          multi: a.multi,
          tuples: a.tuples,
          ends: part.ends,
        };
      });
      for (const g of got) {
        if (!g) return null; // a part without attributions yet (the backfill adds them)
        out.push(g);
      }
    }
    return out;
  }
}

/** The id hashes of a period's kept attribution rows (attribution.ts), row for row. */
interface AttrHashes {
  h1: Uint32Array;
  h2: Uint32Array;
}
