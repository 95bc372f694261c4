/**
 * `deno task generate --org <id> --events N --days D --seed S --end E`: fills an organization's environment
 * with a generated site (lib/demo/site.ts), written straight to the KV store (fast: the 1M-event bench uses
 * it), each record with its dedupe key as ingest writes it, so a rerun (or a later import of the same ids)
 * stores nothing twice; then compacts them. With `--ndjson <file|->` it emits lines for
 * POST /admin/v1/orgs/:org/import instead. Options: see USAGE.
 */
import { keys } from "../lib/store/keys.ts";
import type { EnvName, Touchpoint } from "../lib/store/records.ts";
import { generateSite, siteLines } from "../lib/demo/site.ts";
import { defaultConfig } from "../lib/config.ts";
import { systemClock } from "../lib/clock.ts";
import { consoleLog } from "../lib/log.ts";
import { systemDns } from "../lib/dns.ts";
import { type Deps, noGeo } from "../lib/deps.ts";

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
  --via-raw           write raw records then compact them (default: a new site's parts are written straight,
                      as compaction would leave them, which is far faster; a rerun always takes the raw path)
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
  const deps: Deps = {
    kv,
    clock: systemClock,
    geo: noGeo, // records carry the generated places; nothing is looked up
    dns: systemDns,
    fetch: globalThis.fetch,
    config: defaultConfig,
    log: consoleLog(),
  };
  const report = await generateSite(deps, {
    ...opt,
    touchpoint,
    host,
    compact: a["no-compact"] !== "true",
    direct: a["via-raw"] !== "true",
  });
  console.log(JSON.stringify(report));
  kv.close();
}

if (import.meta.main) await main();
