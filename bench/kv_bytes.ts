/**
 * KV cost of a generated site (the one bench/tools.ts keeps with --kv): bytes stored per event by kind of
 * key (raw records, parts, rollups, visitor numbers, dedupe keys), and bytes read from KV by one cold
 * behavior_overview (a fresh engine; every get, getMany and list counted).
 *   deno run -A bench/kv_bytes.ts --kv file [--events N]
 * Adds { stored, cold_overview_read } under the site's event count to bench/results/kv_bytes.json.
 */
import { createApp } from "../app.ts";
import { kvArgument, openBenchSite } from "./site.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const EVENTS = arg("events", 1_000_000);
const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-kv-",
  events: EVENTS,
  visitors: Math.round(EVENTS / 10),
  days: 30,
});

const enc = new TextEncoder();
const keyBytes = (k: Deno.KvKey) => enc.encode(JSON.stringify(k)).length;
const valueBytes = (v: unknown): number =>
  v instanceof Uint8Array
    ? v.length
    : v === null || v === undefined
    ? 0
    : enc.encode(JSON.stringify(v, (_, x) => (typeof x === "bigint" ? String(x) : x))).length;

// stored bytes by the first element of the key
const stored: Record<string, { keys: number; bytes: number }> = {};
for await (const e of site.kv.list({ prefix: [] }, { batchSize: 1000 })) {
  const kind = String(e.key[0]);
  const s = stored[kind] ??= { keys: 0, bytes: 0 };
  s.keys++;
  s.bytes += keyBytes(e.key) + valueBytes(e.value);
}
const perEvent = Object.fromEntries(
  Object.entries(stored).map((
    [k, s],
  ) => [k, { ...s, per_event: Math.round((s.bytes / site.events) * 10) / 10 }]),
);
console.log(JSON.stringify(perEvent, null, 1));

/** A KV whose reads count their bytes. */
function counting(kv: Deno.Kv, read: { bytes: number; entries: number }): Deno.Kv {
  const add = (e: Deno.KvEntryMaybe<unknown>) => {
    read.entries++;
    read.bytes += keyBytes(e.key) + valueBytes(e.value);
  };
  return new Proxy(kv, {
    get(target, name) {
      if (name === "get") {
        return async (k: Deno.KvKey, o?: unknown) => {
          const e = await target.get(k, o as { consistency?: Deno.KvConsistencyLevel });
          add(e);
          return e;
        };
      }
      if (name === "getMany") {
        return async (ks: Deno.KvKey[], o?: unknown) => {
          const es = await target.getMany(ks, o as { consistency?: Deno.KvConsistencyLevel });
          es.forEach(add);
          return es;
        };
      }
      if (name === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          const it = target.list(sel, o);
          return (async function* () {
            for await (const e of it) {
              add(e);
              yield e;
            }
          })();
        };
      }
      const v = Reflect.get(target, name);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

const read = { bytes: 0, entries: 0 };
const deps = { ...site.makeDeps(), kv: counting(site.kv, read) };
const app = createApp(deps);
const t0 = performance.now();
const res = await app.request("/v1/read/behavior_overview", {
  method: "POST",
  headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
  body: JSON.stringify({ period: "last_30_days" }),
});
await res.text();
const ms = Math.round(performance.now() - t0);
console.log(
  `cold behavior_overview: ${res.status}, ${ms} ms, read ${read.entries} entries, ${read.bytes} bytes`,
);

const file = new URL("./results/kv_bytes.json", import.meta.url);
let all: Record<string, unknown> = {};
try {
  all = JSON.parse(await Deno.readTextFile(file));
} catch { /* first run */ }
all[String(site.events)] = {
  measured_at: new Date().toISOString(),
  load_average: Deno.loadavg(),
  stored: perEvent,
  cold_overview_read: { entries: read.entries, bytes: read.bytes, ms },
};
await Deno.writeTextFile(file, JSON.stringify(all, null, 2) + "\n");
await site.close();
