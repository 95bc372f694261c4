/**
 * A deterministic, realistic site: `deno task generate --org <id> --events N --days D --seed S --end E`.
 * The same seed and end give the same site, byte for byte. Writes stored records straight to the KV store
 * (fast: the 1M-event bench uses it), each with its dedupe key as ingest writes it, so a rerun (or a later
 * import of the same ids) stores nothing twice; then compacts them. With `--ndjson <file|->` it emits lines
 * for POST /admin/v1/orgs/:org/import instead. Options: see USAGE.
 */
import type { Deps } from "../lib/deps.ts";
import { compact } from "../lib/jobs/compact.ts";
import { keys } from "../lib/store/keys.ts";
import type { EnvName, Touchpoint } from "../lib/store/records.ts";
import { crawlerHits } from "./generate/crawl.ts";
import { SiteModel } from "./generate/model.ts";
import { eventLine, hitLine, storedEvent, storedHit, type Target } from "./generate/output.ts";
import { RawWriter } from "./generate/raw_writer.ts";

export interface SiteOptions {
  org: string;
  touchpoint: string;
  env?: EnvName;
  host?: string;
  events: number;
  visitors?: number;
  hits?: number;
  days: number;
  seed: number;
  /** events end here (default: deps.clock.now()) */
  end?: number;
  /** fold the written records into parts right away (default true) */
  compact?: boolean;
}

export interface SiteReport {
  /** generated */
  events: number;
  hits: number;
  /** newly stored; the others were stored already (same ids: a rerun with the same seed) */
  events_stored: number;
  hits_stored: number;
  write_ms: number;
  compact_ms: number;
}

const DAY_MS = 86_400_000;

function targetOf(o: SiteOptions): Target {
  return { org: o.org, touchpoint: o.touchpoint, env: o.env ?? "production", host: o.host ?? "example.com" };
}

function modelOf(o: SiteOptions, end: number): SiteModel {
  return new SiteModel({
    events: o.events,
    visitors: o.visitors ?? Math.max(1, Math.round(o.events / 10)),
    days: o.days,
    end,
    seed: o.seed,
  });
}

const hitsOf = (o: SiteOptions, end: number) =>
  crawlerHits(o.hits ?? Math.round(o.events / 10), end - o.days * DAY_MS, end, o.seed);

/** Fills an environment with a generated site (raw records as ingest stores them, then compacted). */
export async function generateSite(
  deps: Pick<Deps, "kv" | "clock" | "log" | "config">,
  o: SiteOptions,
): Promise<SiteReport> {
  const t0 = performance.now();
  const end = o.end ?? deps.clock.now();
  const target = targetOf(o);
  const w = new RawWriter(deps.kv);
  const model = modelOf(o, end);
  for (const d of model.events()) await w.event(storedEvent(d, target));
  let hits = 0;
  for (const h of hitsOf(o, end)) {
    await w.hit(storedHit(h, target));
    hits++;
  }
  await w.close();
  const t1 = performance.now();
  if (o.compact !== false) {
    const full = deps as Deps;
    await compact(full, o.org, target.env, "ev", { graceMs: 0 });
    await compact(full, o.org, target.env, "hit", { graceMs: 0 });
  }
  return {
    events: model.emitted,
    hits,
    events_stored: w.stored.events,
    hits_stored: w.stored.hits,
    write_ms: Math.round(t1 - t0),
    compact_ms: Math.round(performance.now() - t1),
  };
}

/** NDJSON lines of a generated site, for the import endpoint. */
export function* siteLines(o: SiteOptions & { end: number }): Generator<string> {
  const target = targetOf(o);
  for (const d of modelOf(o, o.end).events()) yield eventLine(d, target);
  for (const h of hitsOf(o, o.end)) yield hitLine(h, target);
}

export const USAGE = `usage: deno task generate --org <id> [options]
  --events N          events to generate (default 10000)
  --days D            days of history, ending at --end (default 30)
  --seed S            random seed: the same seed and --end give the same site (default 1)
  --end <ISO date-time>  when the history ends, e.g. 2026-11-20T00:00:00Z (default: now, so runs differ)
  --visitors V        distinct visitors (default N/10)
  --hits H            crawler hits (default N/10)
  --env production|staging|development  (default production)
  --touchpoint <id>   default: the org's first website
  --host <domain>     default: the touchpoint's domain
  --kv <path>         default $KV_PATH or ./data/kv.sqlite3
  --no-compact        leave the records raw
  --ndjson <file|->   write import lines (POST /admin/v1/orgs/:org/import) instead of writing to KV
Writing to KV twice with the same seed and sizes stores nothing new: every id has its dedupe key, as ingest
writes it (events 35 days, hits 8).`;

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The --end option as epoch ms: an ISO date or date-time, UTC unless it names an offset (never local time). */
export function parseEnd(value: string | undefined, now: number): number {
  if (value === undefined) return now;
  const m = ISO.exec(value);
  const ms = m ? Date.parse(m[1] && !m[4] ? value + "Z" : value) : NaN;
  if (!Number.isFinite(ms)) throw new RangeError(`--end: not an ISO date-time: ${value}`);
  return ms;
}

function args(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith("--")) continue;
    const k = argv[i].slice(2);
    out[k] = argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[++i] : "true";
  }
  return out;
}

async function main() {
  const a = args(Deno.args);
  if (a.help) return console.log(USAGE);
  if (!a.org) {
    console.error(USAGE);
    Deno.exit(2);
  }
  let end: number;
  try {
    end = parseEnd(a.end, Date.now());
  } catch (e) {
    console.error((e as Error).message);
    Deno.exit(2);
  }
  const base = {
    org: a.org,
    events: Number(a.events ?? 10_000),
    days: Number(a.days ?? 30),
    seed: Number(a.seed ?? 1),
    env: (a.env ?? "production") as EnvName,
  };
  const opt = {
    ...base,
    visitors: a.visitors ? Number(a.visitors) : undefined,
    hits: a.hits ? Number(a.hits) : undefined,
    end,
  };
  const kvPath = a.kv ?? Deno.env.get("KV_PATH") ?? "./data/kv.sqlite3";
  if (a.ndjson) {
    const out = a.ndjson === "-"
      ? Deno.stdout
      : await Deno.open(a.ndjson, { write: true, create: true, truncate: true });
    const enc = new TextEncoder();
    let buf: string[] = [];
    const flush = async () => {
      const bytes = enc.encode(buf.join(""));
      for (let off = 0; off < bytes.length;) off += await out.write(bytes.subarray(off));
      buf = [];
    };
    for (
      const line of siteLines({
        ...opt,
        touchpoint: a.touchpoint ?? "tp",
        host: a.host ?? "example.com",
      })
    ) {
      buf.push(line + "\n");
      if (buf.length >= 2000) await flush();
    }
    await flush();
    if (out !== Deno.stdout) out.close();
    return;
  }
  if (kvPath !== ":memory:" && !kvPath.startsWith("http")) {
    await Deno.mkdir(kvPath.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  }
  const kv = await Deno.openKv(kvPath);
  let tp: Touchpoint | null = null;
  for await (const e of kv.list<Touchpoint>({ prefix: keys.touchpoints(a.org) })) {
    if (a.touchpoint ? e.value.id === a.touchpoint : e.value.kind === "website" && !e.value.archived) {
      tp = e.value;
      break;
    }
  }
  const touchpoint = tp?.id ?? a.touchpoint;
  if (!touchpoint) {
    console.error(
      `organization ${a.org} has no website touchpoint in ${kvPath}; create one with the admin API or pass --touchpoint`,
    );
    Deno.exit(1);
  }
  const host = a.host ?? tp?.environments[base.env]?.domain ?? tp?.environments.production.domain ??
    "example.com";
  const { defaultConfig } = await import("../lib/config.ts");
  const { systemClock } = await import("../lib/clock.ts");
  const { consoleLog } = await import("../lib/log.ts");
  const report = await generateSite({ kv, clock: systemClock, log: consoleLog(), config: defaultConfig }, {
    ...opt,
    touchpoint,
    host,
    compact: a["no-compact"] !== "true",
  });
  console.log(JSON.stringify(report));
  kv.close();
}

if (import.meta.main) await main();
