/**
 * The city databases turned into a place index (place_index.ts) plus a dictionary of places: each
 * distinct (country, city) pair once, country codes and city names each stored once.
 */
import type { ParsedIp } from "../ip.ts";
import { stringAt, type StringTable, stringTable } from "./string_table.ts";
import { placeAt, placeSpans, readMetadata, stringIn, treeRanges } from "./mmdb.ts";
import {
  buildFamily4,
  buildFamily6,
  type FamilyParts,
  FIRST_PLACE,
  NO_PLACE,
  placeCode,
} from "./place_index.ts";

export interface CityParts {
  v4: FamilyParts | null;
  v6: FamilyParts | null;
  countries: string[]; // index 0 stands for none
  cities: StringTable; // index 0 stands for none
  placeCountry: Uint16Array; // per place: index into countries
  placeCity: Uint32Array; // per place: index into cities
}

export interface Place {
  country: string | null;
  city: string | null;
}

/** Collects distinct places while databases are read. */
export class PlaceDictionary {
  // Null-prototype objects, not Maps: string-keyed Maps proved several times slower here (V8 in Deno 2.9).
  #places: Dict = Object.create(null);
  #countries = new Interner();
  #cities = new Interner();
  #placeCountry: number[] = [];
  #placeCity: number[] = [];

  code(p: Place): number {
    const key = `${p.country ?? ""}\t${p.city ?? ""}`;
    let id = this.#places[key];
    if (id === undefined) {
      id = this.#places[key] = this.#placeCountry.length;
      this.#placeCountry.push(this.#countries.index(p.country ?? ""));
      this.#placeCity.push(this.#cities.index(p.city ?? ""));
    }
    return id + FIRST_PLACE;
  }

  // Places seen, by their raw bytes (country, 0xff, city): a hash of place ids over a byte store.
  #slots = new Int32Array(1 << 16).fill(-1);
  #used = 0;
  #keyBytes = new Uint8Array(1 << 20);
  #keyEnds: number[] = [];
  #keyCode: number[] = [];

  /** The code of the place whose strings lie at `spans` in `b` (see placeSpans); strings made only once. */
  codeAt(b: Uint8Array, spans: Int32Array): number {
    const ca = spans[0], cl = spans[1], ya = spans[2], yl = spans[3];
    let h = 0x811c9dc5;
    for (let i = 0; i < cl; i++) h = Math.imul(h ^ b[ca + i], 16777619);
    h = Math.imul(h ^ 0xff, 16777619);
    for (let i = 0; i < yl; i++) h = Math.imul(h ^ b[ya + i], 16777619);
    const mask = this.#slots.length - 1;
    for (let s = (h >>> 0) & mask;; s = (s + 1) & mask) {
      const id = this.#slots[s];
      if (id === -1) return this.#add(s, b, spans);
      if (this.#sameKey(id, b, spans)) return this.#keyCode[id];
    }
  }

  #sameKey(id: number, b: Uint8Array, spans: Int32Array): boolean {
    const ca = spans[0], cl = spans[1], ya = spans[2], yl = spans[3];
    const from = id ? this.#keyEnds[id - 1] : 0, to = this.#keyEnds[id], k = this.#keyBytes;
    if (to - from !== Math.max(cl, 0) + 1 + Math.max(yl, 0)) return false;
    let p = from;
    for (let i = 0; i < cl; i++) if (k[p++] !== b[ca + i]) return false;
    if (k[p++] !== 0xff) return false;
    for (let i = 0; i < yl; i++) if (k[p++] !== b[ya + i]) return false;
    return true;
  }

  #add(slot: number, b: Uint8Array, spans: Int32Array): number {
    const ca = spans[0], cl = spans[1], ya = spans[2], yl = spans[3];
    const code = this.code({
      country: cl > 0 ? stringIn(b, ca, cl).toUpperCase() : null,
      city: yl > 0 ? stringIn(b, ya, yl) : null,
    });
    const from = this.#keyEnds.at(-1) ?? 0, length = Math.max(cl, 0) + 1 + Math.max(yl, 0);
    if (from + length > this.#keyBytes.length) {
      const grown = new Uint8Array((from + length) * 2);
      grown.set(this.#keyBytes);
      this.#keyBytes = grown;
    }
    if (cl > 0) this.#keyBytes.set(b.subarray(ca, ca + cl), from);
    this.#keyBytes[from + Math.max(cl, 0)] = 0xff;
    if (yl > 0) this.#keyBytes.set(b.subarray(ya, ya + yl), from + Math.max(cl, 0) + 1);
    this.#keyEnds.push(from + length);
    this.#keyCode.push(code);
    this.#slots[slot] = this.#keyCode.length - 1;
    if (++this.#used * 2 > this.#slots.length) this.#rehash();
    return code;
  }

  #rehash() {
    const slots = new Int32Array(this.#slots.length * 2).fill(-1),
      mask = slots.length - 1,
      k = this.#keyBytes;
    for (let id = 0; id < this.#keyEnds.length; id++) {
      let h = 0x811c9dc5;
      for (let p = id ? this.#keyEnds[id - 1] : 0; p < this.#keyEnds[id]; p++) {
        h = Math.imul(h ^ k[p], 16777619);
      }
      let s = (h >>> 0) & mask;
      while (slots[s] !== -1) s = (s + 1) & mask;
      slots[s] = id;
    }
    this.#slots = slots;
  }

  parts(): Pick<CityParts, "countries" | "cities" | "placeCountry" | "placeCity"> {
    return {
      countries: this.#countries.strings,
      cities: stringTable(this.#cities.strings),
      placeCountry: Uint16Array.from(this.#placeCountry),
      placeCity: Uint32Array.from(this.#placeCity),
    };
  }
}

type Dict = { [k: string]: number };

/** Each distinct string once, numbered in order of arrival; "" is 0. */
class Interner {
  strings: string[] = [""];
  #ids: Dict = Object.create(null);
  index(s: string): number {
    if (s === "") return 0;
    return this.#ids[s] ??= this.strings.push(s) - 1;
  }
}

/** One MMDB file's ranges as (starts, place codes); throws on a file that is not a usable MMDB. */
export function readCityFile(
  bytes: Uint8Array,
  dict: PlaceDictionary,
): { v: 4 | 6; starts: Uint32Array; codes: Uint32Array } {
  const meta = readMetadata(bytes);
  const { starts, records } = treeRanges(bytes, meta);
  const base = (meta.nodeCount * meta.recordSize) / 4 + 16;
  // Record offset → place code, in an open-addressing hash of typed arrays (a Map is several times slower).
  const slots = 1 << Math.max(16, Math.ceil(Math.log2(records.length + 1)));
  const keys = new Int32Array(slots).fill(-1), vals = new Uint32Array(slots), spans = new Int32Array(4);
  const codes = new Uint32Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r < 0) {
      codes[i] = NO_PLACE;
      continue;
    }
    let h = Math.imul(r, 0x9e3779b1) >>> 0;
    for (h &= slots - 1; keys[h] !== r && keys[h] !== -1; h = (h + 1) & (slots - 1));
    if (keys[h] === -1) {
      keys[h] = r;
      vals[h] = placeSpans(bytes, base, r, spans)
        ? dict.codeAt(bytes, spans)
        : dict.code(placeAt(bytes, base, r));
    }
    codes[i] = vals[h];
  }
  return { v: meta.ipVersion, starts, codes };
}

export function buildFamilies(files: { v: 4 | 6; starts: Uint32Array; codes: Uint32Array }[]) {
  const v4 = files.find((f) => f.v === 4), v6 = files.find((f) => f.v === 6);
  return {
    v4: v4 ? buildFamily4(v4.starts, v4.codes) : null,
    v6: v6 ? buildFamily6(v6.starts, v6.codes) : null,
  };
}

export function cityLookup(parts: CityParts, ip: ParsedIp): Place {
  const code = placeCode(parts.v4, parts.v6, ip);
  if (code < FIRST_PLACE) return { country: null, city: null };
  const place = code - FIRST_PLACE;
  return {
    country: parts.countries[parts.placeCountry[place]] || null,
    city: stringAt(parts.cities, parts.placeCity[place]) || null,
  };
}
