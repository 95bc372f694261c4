/**
 * The sessions sources' runs cannot give, joined from their blocks' rows (attribution.ts) for a period's kept
 * runs (sources_from_runs.ts): the blocks' rows a period or a pass picks (`joinUnits`), the raw tail's rows
 * joined with a period's (`withTail`) and what both are kept and let go as.
 */
import { release } from "../../parts/packed_arrays.ts";
import { Gone, type RollupReader, unitOf } from "./reader.ts";
import type { Scope } from "../types.ts";
import type { VisitorRange } from "./first_touch.ts";
import {
  attributionJoin,
  type AttrRows,
  attrRowsBytes,
  type AttrUnit,
  flattenRows,
  sessionEntries,
} from "./attribution.ts";
import type { RollupParts } from "./pieces.ts";
import {
  ATTR_SEC,
  decodeAttr,
  decodeBlockEntries,
  decodeEnds,
  decodeFacts,
  ENDS_SEC,
  entriesSec,
  type FactAttr,
  factsSec,
  hasBlockEntries,
  readSections,
  type RollupEntry,
  type SectionAsk,
} from "./store.ts";
import { blockUnit, type RunsPeriod, type RunsPlaces } from "./attribution_period.ts";
import { findKey } from "./spans.ts";
import { releaseArraysOf, releaseViews } from "./let_go.ts";
import type { FactEnds } from "./session_facts.ts";

/**
 * A period's sources kept from runs: the runs taken whole, the joined units (with their hours inside) and
 * their rows joined without a raw tail.
 */
export interface KeptRuns {
  period: RunsPeriod;
  units: AttrUnit[];
  inside: Set<number>[];
  rows: AttrRows;
}

export const keptRunsBytes = (k: KeptRuns): number =>
  k.period.vis.byteLength + k.period.entry.byteLength + k.period.n * 16 + k.period.tuples.length * 200 +
  k.period.pages.length * 60 +
  k.units.reduce((n, u) => n + u.facts.n * 40, 0) + attrRowsBytes(k.rows);

/**
 * The rows of a period's kept runs (or of one pass's: `range`) joined with the raw tail's (those of its
 * visitors in the range): the tail's sessions in scope found among the parts' by key leave their runs (`out`,
 * by place in the period's sessions) and join from their blocks' rows with the tail's. Null: a part went.
 */
export async function withTail(
  r: RollupReader,
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
  const extra = await joinUnits(
    r,
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
 * The rows of the blocks `need` names that `joins` picks (by part, visitor number and first id hash), as
 * attribution units (with entries when asked), a window of parts at a time; null when a part lacks them.
 */
export async function joinUnits(
  r: RollupReader,
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
    const got = await readSections(r.deps.kv, asks);
    const attr = new Map<number, FactAttr>(), ends = new Map<number, FactEnds>();
    const blockEnds = new Map<string, FactEnds>();
    got.forEach((bytes, x) => {
      if (!bytes) throw new Gone();
      r.bytesRead += bytes.length;
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

/** The raw tail's rollup as a unit of attribution rows, or null when its facts lack attributions. */
export function tailAttrUnit(tail: RollupParts): AttrUnit | null {
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
export function releaseUnit(u: AttrUnit): void {
  releaseArraysOf(u.facts);
  releaseArraysOf(u.multi);
  releaseViews([u.codes]);
  if (u.ends) releaseArraysOf(u.ends);
}
