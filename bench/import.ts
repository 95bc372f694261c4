/**
 * History import throughput: a generated site streamed as NDJSON to the real server's import endpoint,
 * beside a bare KV write loop over the same records in the same run.
 *   deno run -A bench/import.ts [--lines 200000] [--rounds 2] [--geo]
 * Lines are made while they are sent (lib/demo/site.ts siteLines, one streamed request body, never held
 * whole), about 10 events to 1 crawler hit like the 1M-event site. Geo lookups are off unless --geo (the
 * databases cost ~180 MB and seconds to load). The server runs as in production, its compaction cron too.
 * The reference: per record check dedupe key + set dedupe key + set raw record, 100 records per commit,
 * 3 commits in flight (as the group commit), records made before the clock starts (in slices, so memory
 * stays bounded). Each round imports into a new organization, its reference just before it (load from
 * other work hits both alike). Writes bench/results/import.json.
 */
import { siteLines, type SiteOptions } from "../lib/demo/site.ts";
import { SiteModel } from "../lib/demo/model.ts";
import { crawlerHits } from "../lib/demo/crawl.ts";
import { storedEvent, storedHit, type Target } from "../lib/demo/output.ts";
import { packEvent } from "../lib/store/event_codec.ts";
import { keys } from "../lib/store/keys.ts";
import { type RunningServer, startServer } from "../tests/helpers/server.ts";
import { createTenant } from "../tests/helpers/tenant.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const LINES = arg("lines", 200_000);
const ROUNDS = arg("rounds", 2);
const GEO = Deno.args.includes("--geo");
const DAY = 86_400_000;

function siteOptions(
  org: string,
  touchpoint: string,
  host: string,
  end: number,
): SiteOptions & { end: number } {
  const events = Math.round(LINES / 1.1);
  return { org, touchpoint, host, events, hits: LINES - events, days: 30, seed: 7, end };
}

/** The same site as stored records (key, value), in generator order. */
function* siteRecords(
  o: SiteOptions & { end: number },
): Generator<{ id: string; at: number; key: Deno.KvKey; value: unknown }> {
  const t: Target = { org: o.org, touchpoint: o.touchpoint, env: "production", host: o.host! };
  const model = new SiteModel({
    events: o.events,
    visitors: Math.round(o.events / 10),
    days: o.days,
    end: o.end,
    seed: o.seed,
  });
  for (const d of model.events()) {
    const e = storedEvent(d, t);
    yield {
      id: e.id,
      at: e.received_at,
      key: keys.rawEvent(e.org, e.env, e.received_at, e.id),
      value: packEvent(e),
    };
  }
  for (const h of crawlerHits(o.hits!, o.end - o.days * DAY, o.end, o.seed)) {
    const s = storedHit(h, t);
    yield { id: s.id, at: s.received_at, key: keys.rawHit(s.org, s.env, s.received_at, s.id), value: s };
  }
}

/** The bare loop; returns records/s over the timed writes only. */
async function reference(o: SiteOptions & { end: number }): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "bench-import-ref-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const records = siteRecords(o);
  let ms = 0, n = 0;
  while (true) {
    const slice = [];
    for (let r = records.next(); !r.done; r = records.next()) if (slice.push(r.value) >= 20_000) break;
    if (!slice.length) break;
    const t0 = performance.now();
    const flying: Promise<unknown>[] = [];
    for (let i = 0; i < slice.length; i += 100) {
      const op = kv.atomic();
      for (const r of slice.slice(i, i + 100)) {
        const dk = keys.dedupe(o.org, r.id);
        op.check({ key: dk, versionstamp: null }).set(dk, r.at, { expireIn: 35 * DAY }).set(r.key, r.value);
      }
      flying.push(op.commit());
      if (flying.length >= 3) await flying.shift();
    }
    await Promise.all(flying);
    ms += performance.now() - t0;
    n += slice.length;
  }
  kv.close();
  await Deno.remove(dir, { recursive: true });
  return n / (ms / 1000);
}

/** NDJSON lines as a byte stream, made on demand (a few hundred lines a chunk). */
function lineStream(lines: Generator<string>, limit: number): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let sent = 0;
  return new ReadableStream({
    pull(ctrl) {
      const chunk: string[] = [];
      for (let r = lines.next(); !r.done && sent < limit; r = lines.next()) {
        sent++;
        if (chunk.push(r.value + "\n") >= 500) break;
      }
      if (chunk.length) ctrl.enqueue(enc.encode(chunk.join("")));
      if (!chunk.length || sent >= limit) ctrl.close();
    },
  });
}

const rssMb = async (pid: number, field: "VmRSS" | "VmHWM") => {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  return Math.round(Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0) / 1024);
};

const load = () => Deno.loadavg().map((x) => Number(x.toFixed(2)));

/** One round: the reference, then the import of the same site into a new organization. */
async function round(srv: RunningServer) {
  const t = await createTenant({ request: (p, i) => fetch(srv.url + p, i) }, srv.adminToken);
  const o = siteOptions(t.org, t.touchpoint, t.domain, Date.now());
  const loadBefore = load();
  const refPerS = await reference({ ...o, org: "org_ref" });
  let rssPeak = await rssMb(srv.pid, "VmRSS");
  const sampler = setInterval(async () => rssPeak = Math.max(rssPeak, await rssMb(srv.pid, "VmRSS")), 500);
  const t0 = performance.now();
  const res = await fetch(
    `${srv.url}/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${srv.adminToken}`, "content-type": "application/x-ndjson" },
      body: lineStream(siteLines(o), LINES),
    },
  );
  const answer = await res.json();
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (!res.ok) throw new Error(`import answered ${res.status}: ${JSON.stringify(answer)}`);
  const linesPerS = LINES / wallS;
  return {
    load_average_before: loadBefore,
    load_average_after: load(),
    wall_s: Number(wallS.toFixed(1)),
    lines_per_s: Math.round(linesPerS),
    imported: answer.imported,
    duplicates: answer.duplicates,
    rejected: answer.rejected_total,
    first_rejected: answer.rejected.slice(0, 3),
    reference_records_per_s: Math.round(refPerS),
    ratio: Number((linesPerS / refPerS).toFixed(3)),
    extrapolated_1m_lines_min: Number((1_000_000 / linesPerS / 60).toFixed(1)),
    server_rss_mb_peak_sampled: rssPeak,
  };
}

const srv = await startServer({ env: GEO ? { GEO_CITY_MMDB: "", GEO_ASN_CSV: "" } : {} });
try {
  // The generator alone: what making the lines costs (the client makes them while it sends).
  const t0 = performance.now();
  let made = 0;
  for (const _ of siteLines(siteOptions("o", "tp", "acme.test", Date.now()))) made++;
  const generatorLinesPerS = made / ((performance.now() - t0) / 1000);
  const rssIdle = await rssMb(srv.pid, "VmRSS");
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(srv));
  const result = {
    bench: "history import",
    lines: LINES,
    geo: GEO,
    notes: "server: real main.ts process (compaction cron and verification queue on), geo lookups " +
      (GEO ? "on" : "off") + "; lines made by the client while it sends (one streamed body)",
    cores: navigator.hardwareConcurrency,
    generator_alone_lines_per_s: Math.round(generatorLinesPerS),
    server_rss_mb_idle: rssIdle,
    server_rss_mb_high_water: await rssMb(srv.pid, "VmHWM"),
    rounds,
  };
  console.log(JSON.stringify(result, null, 2));
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL("./results/import.json", import.meta.url),
    JSON.stringify(result, null, 2),
  );
} finally {
  await srv.stop();
}
