/**
 * The city databases turned into a place index (place_index.ts) plus a dictionary of places: each
 * distinct (country, city) pair once, country codes and city names each stored once.
 */
import type { ParsedIp } from "./ip.ts";
import { stringAt, type StringTable, stringTable } from "./string_table.ts";
import { placeAt, readMetadata, treeRanges } from "./mmdb.ts";
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
  #places = new Map<string, number>();
  #countries = new Map<string, number>([["", 0]]);
  #cities = new Map<string, number>([["", 0]]);
  #placeCountry: number[] = [];
  #placeCity: number[] = [];

  code(p: Place): number {
    const key = `${p.country ?? ""}\t${p.city ?? ""}`;
    let id = this.#places.get(key);
    if (id === undefined) {
      id = this.#placeCountry.length;
      this.#places.set(key, id);
      this.#placeCountry.push(indexIn(this.#countries, p.country ?? ""));
      this.#placeCity.push(indexIn(this.#cities, p.city ?? ""));
    }
    return id + FIRST_PLACE;
  }

  parts(): Pick<CityParts, "countries" | "cities" | "placeCountry" | "placeCity"> {
    return {
      countries: [...this.#countries.keys()],
      cities: stringTable([...this.#cities.keys()]),
      placeCountry: Uint16Array.from(this.#placeCountry),
      placeCity: Uint32Array.from(this.#placeCity),
    };
  }
}

function indexIn(m: Map<string, number>, s: string): number {
  let i = m.get(s);
  if (i === undefined) m.set(s, i = m.size);
  return i;
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
  const keys = new Int32Array(slots).fill(-1), vals = new Uint32Array(slots), memo = new Map();
  const codes = new Uint32Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r < 0) {
      codes[i] = NO_PLACE;
      continue;
    }
    let h = Math.imul(r, 0x9e3779b1) >>> 0;
    for (h &= slots - 1; keys[h] !== r && keys[h] !== -1; h = (h + 1) & (slots - 1));
    if (keys[h] === -1) keys[h] = r, vals[h] = dict.code(placeAt(bytes, base, r, memo));
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
