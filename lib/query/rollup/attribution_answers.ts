/**
 * Answers by attribution (sources: sessions, visitors and conversions by first-touch fields and entry page,
 * attribution.ts) and explain-a-change's first events (first_touch.ts), from the parts' facts, attributions
 * and first-event sections, the raw tail's beside; each answer kept per period, question and raw tail.
 */
import { holdArraysOf } from "../../working_memory.ts";
import { release } from "../../parts/packed_arrays.ts";
import { inBatches } from "../../batches.ts";
import { Gone, periodKey, type RollupReader, rowsInScope, unitOf } from "./reader.ts";
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
import { visitorCount } from "../../parts/visitor_numbers.ts";
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
import { ROLLUP_FIELDS } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import { forEachMember } from "../../parts/visitor_set.ts";
import {
  ATTR_RUNS_SEC,
  ATTR_SEC,
  decodeAttr,
  decodeBlockEntries,
  decodeEnds,
  decodeFacts,
  decodeFirstIds,
  decodeFirsts,
  decodeKeys,
  decodeRuns,
  ENDS_SEC,
  entriesSec,
  type FactAttr,
  factsSec,
  FIRST_IDS_SEC,
  FIRST_SEC,
  firstRowsOf,
  hasBlockEntries,
  KEYS_SEC,
  readSection,
  readSections,
  type RollupEntry,
  type SectionAsk,
} from "./store.ts";
import {
  answerRuns,
  blockUnit,
  type PartRuns,
  runsAnswer,
  runsInRange,
  type RunsPeriod,
  type RunsPlaces,
  type RunsScratch,
  type RunsTally,
  takeRuns,
  tallyRuns,
} from "./attribution_period.ts";
import { findKey, keysWindow, noKeys, sharedKeys, sharedKeysBytes } from "./spans.ts";
import { releaseArraysOf, releaseViews } from "./let_go.ts";
import { inRanges, keysSplit, type Passes, passesFor } from "./passes.ts";
import type { FactEnds } from "./session_facts.ts";

/** Plain aggregates (explain-a-change's pageviews per value are one), answered by the rollup source. */
type Ask = (s: Scope, questions: AggregateOptions[]) => Promise<(AggregateResult | null)[]>;

export class AttributionAnswers {
  constructor(private r: RollupReader, private ask: Ask) {}

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
        const answers = await this.fromRuns(
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
        goalKept.set(type, await this.goalMembers(parts, partInside, period, s, traffic, type));
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
    const marks = this.goalMarks(
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

  /**
   * Sources from the parts' runs (attribution_runs.ts, attribution_period.ts): the runs a period takes whole
   * and the joined units (the sessions runs cannot give) are kept per period; each question joins those units
   * with the raw tail's rows (and the rows of part sessions the tail holds too, left out of their runs) and
   * counts. Null: a part or section went (the scan answers).
   */
  private async fromRuns(
    parts: { id: string }[],
    entries: RollupEntry[],
    partInside: Set<number>[],
    period: string,
    tailBuilt: { part: RollupParts | null; space: number },
    s: Scope,
    os: AggregateOptions[],
    traffic: Set<string>,
    needEntry: boolean,
    goals: string[],
  ): Promise<AggregateResult[] | null> {
    const tailPart = tailBuilt.part;
    const tailInside = tailPart ? hoursInside([tailPart], s)?.[0] ?? null : null;
    if (tailPart && !tailInside) return null;
    const key = `${period}|runs`;
    // (kept with entry pages serves the questions without them too)
    let keptKey = `${key}|e`;
    let kept = this.r.cache.get(keptKey) as KeptRuns | undefined;
    if (!kept && !needEntry) kept = this.r.cache.get(keptKey = key) as KeptRuns | undefined;
    // (where each kept session is: read only when a raw tail may hold some of them)
    let places = this.r.cache.get(`${key}|p`) as RunsPlaces | undefined;
    if (!kept || (tailPart && !places)) {
      // one pass over every visitor's sessions, or, when the parts' runs and keys and the period's arrays by
      // session would not fit in what the question may hold, passes over ranges of visitor numbers (each
      // reading the parts' runs and keys again; nothing kept but the answers)
      const space = await this.numbered(s, tailBuilt.space);
      // one pass holds (counted) the period's arrays by session (~half the runs' and keys' raw bytes) and the
      // shared-key search's table; a pass of several holds its range's share of the runs and keys decoded too
      const passes = passesFor(
        entries,
        [ATTR_RUNS_SEC, KEYS_SEC],
        space,
        ([runs, keys]) => (runs + keys) * 0.5 + sharedKeysBytes(keys / 9, space),
        ([runs, keys], count) =>
          ((runs + keys) * 1.5) / count +
          sharedKeysBytes(keys / 9 / count, space / count, keysWindow(space / count)),
      );
      if (passes.several) {
        return await this.runsInPasses(
          parts,
          entries,
          partInside,
          period,
          tailBuilt,
          tailInside,
          s,
          os,
          traffic,
          needEntry,
          goals,
          passes,
        );
      }
      const built = await this.buildRuns(parts, entries, partInside, s, traffic, needEntry);
      kept = built.kept;
      places = built.places;
      keptKey = needEntry ? `${key}|e` : key;
      // (the one without entry pages goes when one with them is made)
      if (needEntry) this.r.cache.delete(key);
      this.r.setKept(keptKey, kept, keptRunsBytes(kept), false);
      const w = places.keys.reduce((n, x) => n + x.n * 13, 0);
      if (tailPart) this.r.setKept(`${key}|p`, places, w, true);
      // without a raw tail the places are not kept: the parts' keys (~9 bytes a session) are let go now
      else for (const k of places.keys) releaseArraysOf(k);
    }
    this.r.lastAsked.set(keptKey, this.r.asked);
    if (places) this.r.lastAsked.set(`${key}|p`, this.r.asked);
    let rows = kept.rows, out: Uint8Array | null = null;
    if (tailPart) {
      const joined = await this.withTail(
        kept,
        places!,
        parts,
        entries,
        partInside,
        tailPart,
        tailInside!,
        s,
        traffic,
        needEntry,
        null,
      );
      if (!joined) return null;
      ({ rows, out } = joined);
    }
    const goalKept = new Map<string, Uint32Array>();
    for (const type of goals) {
      goalKept.set(type, await this.goalMembers(parts, partInside, period, s, traffic, type));
    }
    const space = Math.max(kept.period.visitors, rows.visitors, tailBuilt.space);
    const marks = this.goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
    // (the questions share the scope: their totals are counted once per goal, their marks are one set)
    const totals = new Map(), scratch: RunsScratch = { stamp: 0 };
    const answers = os.map((o) =>
      answerRuns(
        kept!.period,
        out,
        rows,
        o.goal ? marks.get(o.goal.event_type)! : null,
        s,
        o,
        totals,
        scratch,
      )
    );
    // made for these questions alone: let go now (the rows joined with a raw tail's too)
    releaseViews([scratch.visitors, scratch.sessions, out, ...marks.values()]);
    if (rows !== kept.rows) releaseArraysOf(rows);
    return answers;
  }

  /**
   * The rows of a period's kept runs (or of one pass's: `range`) joined with the raw tail's (those of its
   * visitors in the range): the tail's sessions in scope found among the parts' by key leave their runs (`out`,
   * by place in the period's sessions) and join from their blocks' rows with the tail's. Null: a part went.
   */
  private async withTail(
    kept: KeptRuns,
    places: RunsPlaces,
    parts: { id: string }[],
    entries: RollupEntry[],
    partInside: Set<number>[],
    tailPart: RollupParts,
    tailInside: Set<number>,
    s: Scope,
    traffic: Set<string>,
    needEntry: boolean,
    range: VisitorRange | null,
  ): Promise<{ rows: AttrRows; out: Uint8Array | null } | null> {
    const whole = tailAttrUnit(tailPart);
    if (!whole) return null;
    // (a pass's: the tail's rows of the range's visitors, copied)
    const tailUnit = range ? attrUnitInRange(whole, range) : whole;
    const f = tailUnit.facts;
    let out: Uint8Array | null = null;
    // the tail's sessions in scope, by key; a part session among them leaves its run and joins from rows
    const tps = tailPart.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
    const trs = tailPart.traffics.map((t) => t !== null && traffic.has(t));
    const tailKeys = new Map<number | string, [number, number]>();
    for (let k = 0; k < f.n; k++) {
      if (!tailInside.has(f.hour[k]) || !tps[f.tp[k]] || !trs[f.traffic[k]]) continue;
      tailKeys.set(sessionKey(f.vis[k], f.h1[k]), [f.vis[k], f.h1[k]]);
    }
    const need = parts.map(() => new Set<number>());
    const match = parts.map(() => new Set<number | string>());
    places.keys.forEach((k, p) => {
      const pos = places.pos[p];
      for (const [id, [v, h]] of tailKeys) {
        for (let x = findKey(k, v, h); x >= 0 && x < k.n && k.vis[x] === v && k.h[x] === h; x++) {
          if (pos[x] < 0) continue;
          out ??= new Uint8Array(kept.period.vis.length);
          out[pos[x]] = 1;
          need[p].add(k.block[x]);
          match[p].add(id);
        }
      }
    });
    const extra = await this.joinUnits(
      parts,
      entries,
      places.blockRows,
      need,
      (p, v, h) => match[p].has(sessionKey(v, h)),
      needEntry,
    );
    if (!extra) return null;
    const units = [...kept.units, ...extra.units, tailUnit];
    const inside = [...kept.inside, ...extra.units.map((_, x) => partInside[extra.part[x]]), tailInside];
    const join = attributionJoin(units, inside, s.touchpoint, traffic, 0, true);
    const rows = flattenRows(units, join, needEntry ? sessionEntries(join, units.map((u) => u.ends)) : null);
    if (range) {
      // (a pass's copies, made for it alone: the rows are what it counts)
      for (const u of [...extra.units, tailUnit]) releaseUnit(u);
    }
    return { rows, out };
  }

  /**
   * Sources in passes over ranges of visitor numbers (the last open-ended), when one pass's runs, keys and
   * arrays by session would not fit in what the question may hold: each pass reads every part's runs and keys
   * again, keeps its range's visitors' (`runsInRange`), takes, joins (with the raw tail's rows of the range)
   * and counts them as one pass would (`tallyRuns`), and lets them go; the passes' counts are added per group
   * (`runsAnswer`: a visitor, its sessions and its conversions are in one range). Null: a part went.
   */
  private async runsInPasses(
    parts: { id: string }[],
    entries: RollupEntry[],
    partInside: Set<number>[],
    period: string,
    tailBuilt: { part: RollupParts | null; space: number },
    tailInside: Set<number> | null,
    s: Scope,
    os: AggregateOptions[],
    traffic: Set<string>,
    needEntry: boolean,
    goals: string[],
    passes: Passes,
  ): Promise<AggregateResult[] | null> {
    const tailPart = tailBuilt.part;
    if (tailPart && !tailAttrUnit(tailPart)) return null;
    const goalKept = new Map<string, Uint32Array>();
    for (const type of goals) {
      goalKept.set(type, await this.goalMembers(parts, partInside, period, s, traffic, type));
    }
    // (every goal visitor's number is inside the marks: a visitor past them converted nowhere)
    const space = Math.max(
      passes.space,
      ...[...goalKept.values()].map((l) => (l.length ? l[l.length - 1] + 1 : 0)),
    );
    const marks = this.goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
    const counted = os.map(() => [] as RunsTally[]);
    // (marks by session and by visitor, from each pass's first number, shared by every pass and question)
    const scratch: RunsScratch = { stamp: 0 };
    try {
      const done = await inRanges(passes, sourcesInPasses, async (range, atOnce) => {
        const { kept, places } = await this.buildRuns(
          parts,
          entries,
          partInside,
          s,
          traffic,
          needEntry,
          range,
          atOnce,
        );
        let rows = kept.rows, out: Uint8Array | null = null;
        try {
          if (tailPart) {
            const joined = await this.withTail(
              kept,
              places,
              parts,
              entries,
              partInside,
              tailPart,
              tailInside!,
              s,
              traffic,
              needEntry,
              range,
            );
            if (!joined) return null;
            ({ rows, out } = joined);
          }
          const totals = new Map();
          os.forEach((o, i) =>
            counted[i].push(
              tallyRuns(
                kept.period,
                out,
                rows,
                o.goal ? marks.get(o.goal.event_type)! : null,
                s,
                o,
                totals,
                scratch,
                range.lo,
              ),
            )
          );
          return true;
        } finally {
          // the pass's own: let go before the next is read
          releaseArraysOf(kept.period);
          releaseViews([out, ...places.pos, ...places.blockRows]);
          for (const k of places.keys) releaseArraysOf(k);
          for (const u of kept.units) releaseUnit(u);
          releaseArraysOf(kept.rows);
          if (rows !== kept.rows) releaseArraysOf(rows);
        }
      }, (count, atOnce) => keysSplit(this.r, parts, entries, passes.space, count, atOnce));
      if (!done) return null;
    } finally {
      releaseViews([scratch.visitors, scratch.sessions, ...marks.values()]);
    }
    sourcesInPasses.answers += os.length;
    return os.map((o, i) => runsAnswer(counted[i], o));
  }

  /**
   * A period's runs taken whole and its joined units (rows of the sessions runs cannot give), joined; with
   * `range`, those of its visitors alone (each part's runs and keys read `atOnce` at a time, whole while the
   * range's are copied out, counted as the question's: lib/working_memory.ts).
   */
  private async buildRuns(
    parts: { id: string }[],
    entries: RollupEntry[],
    partInside: Set<number>[],
    s: Scope,
    traffic: Set<string>,
    needEntry: boolean,
    range: VisitorRange | null = null,
    atOnce = 4,
  ): Promise<{ kept: KeptRuns; places: RunsPlaces }> {
    let partRuns: PartRuns[];
    let space = 1;
    if (!range) {
      const asks: SectionAsk[] = parts.flatMap((p, i) => [
        { partId: p.id, entry: entries[i], sec: ATTR_RUNS_SEC },
        { partId: p.id, entry: entries[i], sec: KEYS_SEC },
      ]);
      const got = await readSections(this.r.deps.kv, asks);
      partRuns = [];
      for (let i = 0; i < parts.length; i++) {
        const a = got[2 * i], b = got[2 * i + 1];
        if (!a || b === undefined) throw new Gone();
        this.r.bytesRead += a.length + (b?.length ?? 0);
        const keys = b ? decodeKeys(b) : noKeys();
        partRuns.push({
          runs: decodeRuns(a),
          keys,
          shared: new Uint8Array(0),
          tps: entries[i].head.tps,
          traffics: entries[i].head.traffics,
        });
        // (decoded into buffers of their own: the stored bytes are let go now, packed_arrays.ts `release`)
        release(a);
        release(b);
      }
    } else {
      partRuns = await inBatches(parts, atOnce, async (p, i) => {
        const [a, b] = await readSections(this.r.deps.kv, [
          { partId: p.id, entry: entries[i], sec: ATTR_RUNS_SEC },
          { partId: p.id, entry: entries[i], sec: KEYS_SEC },
        ]);
        if (!a || b === undefined) throw new Gone();
        this.r.bytesRead += a.length + (b?.length ?? 0);
        const runs = decodeRuns(a), keys = b ? decodeKeys(b) : noKeys();
        release(a);
        release(b);
        holdArraysOf(runs);
        holdArraysOf(keys);
        const mine = runsInRange(runs, keys, range);
        releaseArraysOf(runs);
        releaseArraysOf(keys);
        holdArraysOf(mine.runs);
        holdArraysOf(mine.keys);
        return {
          ...mine,
          shared: new Uint8Array(0),
          tps: entries[i].head.tps,
          traffics: entries[i].head.traffics,
        };
      });
    }
    for (const { keys } of partRuns) {
      if (keys.n && keys.vis[keys.n - 1] >= space) space = keys.vis[keys.n - 1] + 1;
    }
    // (a pass's keys searched from its first number, a smaller window at a time: a smaller table)
    const shared = range
      ? sharedKeys(
        partRuns.map((p) => p.keys),
        space,
        keysWindow(Math.min(range.hi, space) - range.lo),
        range.lo,
      )
      : sharedKeys(partRuns.map((p) => p.keys), space);
    partRuns.forEach((p, i) => (p.shared = shared[i]));
    const taken = takeRuns(partRuns, partInside, s.touchpoint, traffic);
    // (the runs and which keys are shared were decoded and made for this: what the period takes is copied out)
    for (const p of partRuns) (releaseArraysOf(p.runs), releaseViews([p.shared]));
    // (a pass's rows join for its range's visitors alone)
    const joins = range
      ? (p: number, v: number, h: number) => v >= range.lo && v < range.hi && taken.joins(p, v, h)
      : taken.joins;
    const joined = await this.joinUnits(
      parts,
      entries,
      taken.places.blockRows,
      taken.need,
      joins,
      needEntry,
    );
    if (!joined) throw new Gone();
    const inside = joined.part.map((p) => partInside[p]);
    const join = attributionJoin(joined.units, inside, s.touchpoint, traffic, 0, true);
    const rows = flattenRows(
      joined.units,
      join,
      needEntry ? sessionEntries(join, joined.units.map((u) => u.ends)) : null,
    );
    return {
      kept: { period: taken.period, units: joined.units, inside, rows },
      places: taken.places,
    };
  }

  /**
   * The rows of the blocks `need` names that `joins` picks (by part, visitor number and first id hash), as
   * attribution units (with entries when asked), a window of parts at a time; null when a part lacks them.
   */
  private async joinUnits(
    parts: { id: string }[],
    entries: RollupEntry[],
    blockRows: Uint32Array[],
    need: Set<number>[],
    joins: (p: number, vis: number, h1: number) => boolean,
    needEntry: boolean,
  ): Promise<{ units: AttrUnit[]; part: number[] } | null> {
    const units: AttrUnit[] = [], part: number[] = [];
    const wanted = parts.map((_, i) => i).filter((i) => need[i].size > 0);
    for (let w = 0; w < wanted.length; w += 16) {
      const window = wanted.slice(w, w + 16);
      const asks: SectionAsk[] = [];
      const what: { i: number; b: number }[] = [];
      for (const i of window) {
        const e = entries[i];
        asks.push({ partId: parts[i].id, entry: e, sec: ATTR_SEC });
        what.push({ i, b: -1 });
        // the entries of the blocks read when the rollup has them per block, else its ends whole
        if (needEntry && !hasBlockEntries(e)) {
          asks.push({ partId: parts[i].id, entry: e, sec: ENDS_SEC });
          what.push({ i, b: -2 });
        }
        for (const b of [...need[i]].sort((x, y) => x - y)) {
          if (!e.secs[factsSec(b)]) continue;
          asks.push({ partId: parts[i].id, entry: e, sec: factsSec(b) });
          what.push({ i, b });
          if (needEntry && hasBlockEntries(e)) {
            asks.push({ partId: parts[i].id, entry: e, sec: entriesSec(b) });
            what.push({ i, b: -3 - b });
          }
        }
      }
      const got = await readSections(this.r.deps.kv, asks);
      const attr = new Map<number, FactAttr>(), ends = new Map<number, FactEnds>();
      const blockEnds = new Map<string, FactEnds>();
      got.forEach((bytes, x) => {
        if (!bytes) throw new Gone();
        this.r.bytesRead += bytes.length;
        const { i, b } = what[x];
        if (b === -1) attr.set(i, decodeAttr(bytes));
        else if (b === -2) ends.set(i, decodeEnds(bytes));
        else if (b <= -3) blockEnds.set(`${i}|${-3 - b}`, decodeBlockEntries(bytes));
      });
      got.forEach((bytes, x) => {
        const { i, b } = what[x];
        if (b < 0) return release(bytes);
        const facts = decodeFacts(bytes!);
        release(bytes);
        let offset = 0;
        for (let c = 0; c < b; c++) offset += blockRows[i][c];
        const rows: number[] = [];
        for (let k = 0; k < facts.n; k++) if (joins(i, facts.vis[k], facts.h1[k])) rows.push(k);
        if (!rows.length) return releaseArraysOf(facts);
        const head = entries[i].head;
        const own = blockEnds.get(`${i}|${b}`);
        units.push(
          blockUnit(
            facts,
            rows,
            attr.get(i)!,
            !needEntry ? null : own ?? ends.get(i)!,
            offset,
            head.tps,
            head.traffics,
            own ? 0 : offset,
          ),
        );
        part.push(i);
        releaseArraysOf(facts);
      });
      // (a unit is a copy of the rows it takes: the window's decoded sections are let go now)
      for (const d of [...attr.values(), ...ends.values(), ...blockEnds.values()]) releaseArraysOf(d);
    }
    return { units, part };
  }

  /**
   * The visitor numbers with an event of this type in the parts' hours in scope (sorted), from the event
   * type's rows and sets (read for this only: the members are what is kept, per period).
   */
  private async goalMembers(
    parts: { id: string }[],
    partInside: Set<number>[],
    period: string,
    s: Scope,
    traffic: Set<string>,
    type: string,
  ): Promise<Uint32Array> {
    const ev = ROLLUP_FIELDS.indexOf("event_type");
    const gkey = `${period}|goal|${type}`;
    let members = this.r.cache.get(gkey) as Uint32Array | undefined;
    this.r.lastAsked.set(gkey, this.r.asked);
    if (members) return members;
    const want = { fields: [ev], sets: [ev], facts: false, ends: false };
    const got = await inBatches(parts, 4, (p) => this.r.part(p.id, want, false));
    if (got.some((p) => p === null)) throw new Gone();
    const seen = new Set<number>();
    (got as RollupParts[]).forEach((p, pi) => {
      const r = p.field(ev);
      for (const i of rowsInScope(p, r, ev, partInside[pi], s, traffic)) {
        if (r.values[r.value[i]] === type) forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => seen.add(v));
      }
    });
    members = Uint32Array.from(seen).sort();
    this.r.setKept(gkey, members, members.byteLength + 64, false);
    return members;
  }

  /** Each goal's visitors in scope: the parts' (`kept`) and the raw tail's, marked by visitor number. */
  private goalMarks(
    goals: string[],
    kept: Map<string, Uint32Array>,
    space: number,
    tailPart: RollupParts | null,
    tailInside: Set<number> | null,
    s: Scope,
    traffic: Set<string>,
  ): Map<string, Uint8Array> {
    const ev = ROLLUP_FIELDS.indexOf("event_type");
    const marks = new Map<string, Uint8Array>();
    for (const type of goals) {
      const mark = new Uint8Array(space + 1);
      for (const v of kept.get(type)!) if (v < mark.length) mark[v] = 1;
      if (tailPart) {
        const r = tailPart.field(ev);
        for (const i of rowsInScope(tailPart, r, ev, tailInside!, s, traffic)) {
          if (r.values[r.value[i]] !== type) continue;
          forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => (v < mark.length ? mark[v] = 1 : 0));
        }
      }
      marks.set(type, mark);
    }
    return marks;
  }

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
      const space0 = await this.numbered(s, tailBuilt.space);
      const passes = passesFor(
        heads as RollupEntry[],
        bySession ? [FIRST_SEC, FIRST_IDS_SEC] : [FIRST_SEC],
        space0,
        (raw) => (raw[0] + (raw[1] ?? 0)) * 1.1 + space0 * 16,
      );
      // the goal's visitors, the first events and the pageviews per value read together (their KV reads and
      // decoding overlap)
      const [goalLists, units, pvs] = await Promise.all([
        Promise.all(goals.map((type) => this.goalMembers(parts, partInside, period, s, traffic, type))),
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
      const marks = this.goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
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

  /** The visitor numbers given in the environment (and the raw tail's, numbered for this question beyond them). */
  private async numbered(s: Scope, tailSpace: number): Promise<number> {
    return Math.max(tailSpace, await visitorCount(this.r.deps.kv, s.org, s.env));
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

/** Explain-a-change answers given in passes over visitor ranges, and the passes (tests read them). */
export const explainedInPasses = { answers: 0, passes: 0 };

/** Sources questions answered in passes over visitor ranges, and the passes (tests read them). */
export const sourcesInPasses = { answers: 0, passes: 0 };

/**
 * A period's sources kept from runs: the runs taken whole, the joined units (with their hours inside) and
 * their rows joined without a raw tail.
 */
interface KeptRuns {
  period: RunsPeriod;
  units: AttrUnit[];
  inside: Set<number>[];
  rows: AttrRows;
}

const keptRunsBytes = (k: KeptRuns): number =>
  k.period.vis.byteLength + k.period.entry.byteLength + k.period.n * 16 + k.period.tuples.length * 200 +
  k.period.pages.length * 60 +
  k.units.reduce((n, u) => n + u.facts.n * 40, 0) + attrRowsBytes(k.rows);

/** The id hashes of a period's kept attribution rows (attribution.ts), row for row. */
interface AttrHashes {
  h1: Uint32Array;
  h2: Uint32Array;
}

function maxOf(a: Uint32Array): number {
  let m = -1;
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
  return m;
}

/** The bytes a kept attribution answer holds (to weigh it in the cache). */
const answerBytes = (a: AttributionResult) =>
  256 + Object.values(a.by).reduce((n, rows) => n + rows.length * 120, 0);

/** The raw tail's rollup as a unit of attribution rows, or null when its facts lack attributions. */
function tailAttrUnit(tail: RollupParts): AttrUnit | null {
  const f = tail.facts!;
  if (!f.attr || !f.multi || !f.tuples) return null;
  return { ...unitOf(tail), codes: f.attr, multi: f.multi, tuples: f.tuples, ends: f.ends };
}

/**
 * A session's key (visitor number, first id hash) for a Map or Set: one number while visitor × 2^32 + hash is
 * exact (visitor numbers below 2^21), else a string, so two sessions of one visitor never share a key.
 */
const sessionKey = (v: number, h: number): number | string =>
  v < 2_097_152 ? v * 4_294_967_296 + h : `${v}:${h}`;

/** The unit's rows of visitors in the range, copied (a visitor's sessions all carry its number). */
function attrUnitInRange(u: AttrUnit, range: VisitorRange): AttrUnit {
  const rows: number[] = [], vis = u.facts.vis;
  for (let k = 0; k < u.facts.n; k++) if (vis[k] >= range.lo && vis[k] < range.hi) rows.push(k);
  return blockUnit(u.facts, rows, u, u.ends, 0, u.tps, u.traffics);
}

/** Frees a unit's arrays made for one question (its facts, codes, attributions of several and entries). */
function releaseUnit(u: AttrUnit): void {
  releaseArraysOf(u.facts);
  releaseArraysOf(u.multi);
  releaseViews([u.codes]);
  if (u.ends) releaseArraysOf(u.ends);
}
