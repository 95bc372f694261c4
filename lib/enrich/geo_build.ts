/**
 * Builds one geo index (city or ASN) from its source files and writes it as a cache file (geo_cache.ts).
 * geo.ts runs this as its own process: reading the databases whole needs ~150 MB for a few seconds, and
 * a process gives all of it back when it exits, which memory freed inside the server would not (the
 * allocator keeps it). Usage: deno run --allow-read --allow-write geo_build.ts <job json> <out file>
 */
import { buildAsnTable } from "./asn.ts";
import { buildFamilies, PlaceDictionary, readCityFile } from "./city_index.ts";
import { encodeCache, type SourceId } from "./geo_cache.ts";

export interface BuildJob {
  kind: "city" | "asn";
  sources: SourceId[];
}

/** What a build leaves in its file: the index (null if nothing usable) and what went wrong. */
export interface Built {
  value: unknown;
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

export function build(job: BuildJob): Built {
  const warnings: string[] = [];
  const files = job.sources.map((s) => s.path);
  if (job.kind === "asn") return { value: buildAsnTable(asnFiles(files, warnings)).parts, warnings };
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
  return { value: families.v4 || families.v6 ? { ...families, ...dict.parts() } : null, warnings };
}

if (import.meta.main) {
  const job = JSON.parse(Deno.args[0]) as BuildJob;
  Deno.writeFileSync(Deno.args[1], encodeCache(job.sources, build(job)));
}
