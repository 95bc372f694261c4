/**
 * Builds the geo indexes ahead of any start (`deno task build`, scripts/build.ts): one file per city
 * database (each with its own place dictionary) and one for the ASN tables, in the index folder that
 * geo.ts only reads. Reading the databases whole needs ~150 MB for a few seconds per file, which the
 * build process gives back when it exits; a server never builds, never writes, never starts a process.
 */
import { buildAsnTable } from "./asn.ts";
import { buildFamilies, PlaceDictionary, readCityFile } from "./city_index.ts";
import { decodeIndex, encodeIndex, readIndexSources, readWhole } from "./geo_file.ts";
import {
  type GeoKind,
  type GeoPaths,
  indexDirOf,
  indexFileName,
  sameSources,
  type SourceId,
  sourceIds,
  sourcesOf,
  WHAT,
} from "./geo_sources.ts";

export interface BuildReport {
  /** Index files written, or kept because they were built from these very sources. */
  written: string[];
  kept: string[];
  warnings: string[];
}

function* asnFiles(names: string[], warnings: string[]) {
  for (const file of names) {
    try {
      yield Deno.readFileSync(file); // one file in memory at a time
    } catch (e) {
      warnings.push(`geo: cannot read ASN table ${file}: ${(e as Error).message}`);
    }
  }
}

/** One index from its source files; null when nothing usable was read. */
export function buildIndex(kind: GeoKind, files: string[], warnings: string[]): unknown | null {
  if (kind === "asn") {
    const parts = buildAsnTable(asnFiles(files, warnings)).parts;
    return parts.v4.asn.length + parts.v6.asn.length > 0 ? parts : null;
  }
  const dict = new PlaceDictionary();
  const read = [];
  for (const file of files) {
    try {
      read.push(readCityFile(Deno.readFileSync(file), dict));
    } catch (e) {
      warnings.push(`geo: cannot read city database ${file}: ${(e as Error).message}`);
    }
  }
  const families = buildFamilies(read);
  return families.v4 || families.v6 ? { ...families, ...dict.parts() } : null;
}

/** Writes atomically (temp file, then rename) so a concurrent reader never sees half a file. */
export async function writeAtomic(file: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(tmp, bytes);
    await Deno.rename(tmp, file);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** True when `file` is an index built from exactly these sources (name, size, modification time). */
function upToDate(file: string, sources: SourceId[]): boolean {
  try {
    const got = readIndexSources(file);
    return got !== null && sameSources(got, sources, true) && decodeIndex(readWhole(file)) !== null;
  } catch {
    return false;
  }
}

/** Index files of a kind from an earlier build that this build does not make (fewer sources, or off). */
async function removeStale(dir: string, kind: GeoKind, keep: Set<string>) {
  for await (const e of Deno.readDir(dir)) {
    const ours = kind === "asn" ? e.name === "asn.bin" : /^city-\d+\.bin$/.test(e.name);
    if (ours && !keep.has(e.name)) await Deno.remove(`${dir}/${e.name}`);
  }
}

/**
 * Builds what is missing or out of date. A source that cannot be read leaves its index out (and says so),
 * so the server starts with those fields null rather than with a wrong index.
 */
export async function buildGeoIndex(paths: GeoPaths = {}): Promise<BuildReport> {
  const dir = indexDirOf(paths);
  await Deno.mkdir(dir, { recursive: true });
  const report: BuildReport = { written: [], kept: [], warnings: [] };
  for (const kind of ["asn", "city"] as const) {
    const src = await sourcesOf(kind, paths[kind]);
    const keep = new Set<string>();
    if (src && !src.files.length) {
      report.warnings.push(`geo: ${WHAT[kind]} database not found at ${src.wanted}; no ${kind} index built`);
    }
    // one index per city file (its own place dictionary); one for all ASN tables
    const jobs = !src
      ? []
      : kind === "asn"
      ? (src.files.length ? [src.files] : [])
      : src.files.map((f) => [f]);
    for (const [i, files] of jobs.entries()) {
      const name = indexFileName(kind, i);
      const file = `${dir}/${name}`;
      const sources = await sourceIds(files);
      keep.add(name);
      if (upToDate(file, sources)) {
        report.kept.push(file);
        continue;
      }
      const warnings: string[] = [];
      const value = buildIndex(kind, files, warnings);
      report.warnings.push(...warnings);
      if (value === null || warnings.length) {
        keep.delete(name); // a partial build is not kept: the next build tries that file again
        continue;
      }
      await writeAtomic(file, encodeIndex(sources, value));
      report.written.push(file);
    }
    await removeStale(dir, kind, keep);
  }
  return report;
}
