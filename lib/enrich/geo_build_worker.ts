/**
 * Builds the geo indexes off the main thread, from the source files named in the message. Reading the
 * databases whole needs ~150 MB for a few seconds; in a worker all of it goes when the worker ends,
 * and the server keeps only the compact arrays, which are transferred, not copied.
 */
/// <reference lib="deno.worker" />
import { buildAsnTable } from "./asn.ts";
import { buildFamilies, PlaceDictionary, readCityFile } from "./city_index.ts";

export type BuildJob = { kind: "city" | "asn"; files: string[] };
export type BuildResult = { value: unknown; warnings: string[] } | { error: string };

function buffersOf(value: unknown, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) out.add(value.buffer as ArrayBuffer);
  else if (value && typeof value === "object") { for (const v of Object.values(value)) buffersOf(v, out); }
  return [...out];
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

function build(job: BuildJob): { value: unknown; warnings: string[] } {
  const warnings: string[] = [];
  if (job.kind === "asn") return { value: buildAsnTable(asnFiles(job.files, warnings)).parts, warnings };
  const dict = new PlaceDictionary();
  const read = [];
  for (const file of job.files) {
    try {
      read.push(readCityFile(Deno.readFileSync(file), dict));
    } catch (e) {
      warnings.push(`geo: cannot read city database ${file}: ${(e as Error).message}`);
    }
  }
  const families = buildFamilies(read);
  return { value: families.v4 || families.v6 ? { ...families, ...dict.parts() } : null, warnings };
}

self.onmessage = (e: MessageEvent<BuildJob>) => {
  try {
    const result = build(e.data);
    self.postMessage(result, buffersOf(result.value));
  } catch (err) {
    self.postMessage({ error: (err as Error).message } satisfies BuildResult);
  }
};
