/**
 * Sources from the parts' runs (rollup version 10: attribution_runs.ts, attribution_period.ts): the runs a
 * period takes whole and the units joined beside them (sources_joins.ts), in one pass or in passes over ranges
 * of visitor numbers (passes.ts) when one would not fit in what the question may hold.
 */
import { holdArraysOf } from "../../working_memory.ts";
import { release } from "../../parts/packed_arrays.ts";
import { inBatches } from "../../batches.ts";
import { Gone, type RollupReader } from "./reader.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import type { VisitorRange } from "./first_touch.ts";
import { attributionJoin, flattenRows, sessionEntries } from "./attribution.ts";
import { hoursInside } from "./answer.ts";
import type { RollupParts } from "./pieces.ts";
import {
  ATTR_RUNS_SEC,
  decodeKeys,
  decodeRuns,
  KEYS_SEC,
  readSections,
  type RollupEntry,
  type SectionAsk,
} from "./store.ts";
import {
  answerRuns,
  type PartRuns,
  runsAnswer,
  runsInRange,
  type RunsPlaces,
  type RunsScratch,
  type RunsTally,
  takeRuns,
  tallyRuns,
} from "./attribution_period.ts";
import { keysWindow, noKeys, sharedKeys, sharedKeysBytes } from "./spans.ts";
import { releaseArraysOf, releaseViews } from "./let_go.ts";
import { inRanges, keysSplit, numbered, type Passes, passesFor } from "./passes.ts";
import { goalMarks, goalMembers } from "./goal_visitors.ts";
import {
  joinUnits,
  type KeptRuns,
  keptRunsBytes,
  releaseUnit,
  tailAttrUnit,
  withTail,
} from "./sources_joins.ts";

export class SourcesFromRuns {
  constructor(private r: RollupReader) {}

  /**
   * Sources from the parts' runs (attribution_runs.ts, attribution_period.ts): the runs a period takes whole
   * and the joined units (the sessions runs cannot give) are kept per period; each question joins those units
   * with the raw tail's rows (and the rows of part sessions the tail holds too, left out of their runs) and
   * counts. Null: a part or section went (the scan answers).
   */
  async answer(
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
      const space = await numbered(this.r, s, tailBuilt.space);
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
      const joined = await withTail(
        this.r,
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
      goalKept.set(type, await goalMembers(this.r, parts, partInside, period, s, traffic, type));
    }
    const space = Math.max(kept.period.visitors, rows.visitors, tailBuilt.space);
    const marks = goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
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
      goalKept.set(type, await goalMembers(this.r, parts, partInside, period, s, traffic, type));
    }
    // (every goal visitor's number is inside the marks: a visitor past them converted nowhere)
    const space = Math.max(
      passes.space,
      ...[...goalKept.values()].map((l) => (l.length ? l[l.length - 1] + 1 : 0)),
    );
    const marks = goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
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
            const joined = await withTail(
              this.r,
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
    const joined = await joinUnits(
      this.r,
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
}

/** Sources questions answered in passes over visitor ranges, and the passes (tests read them). */
export const sourcesInPasses = { answers: 0, passes: 0 };
