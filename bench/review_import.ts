/**
 * Review import throughput: a CSV of N generated reviews (the demo's templates with filler sentences, each
 * text made distinct, dates over a year, a third with a developer reply) imported through `importReviews`,
 * the function the HTTP import route (routes/admin_feedback.ts) and the admin CLI call, into a new KV file.
 * While it runs, a reader asks the review cache for the last 30 days (`between`, what the feedback tools ask)
 * every READ_EVERY ms, as another instance would; after it, the same period cold (a new cache) and warm.
 * Then the same file again (every review unchanged: the retry's path).
 *   deno run -A --v8-flags=--expose-gc bench/review_import.ts [--rows 10000,50000] [--dir /tmp/s24/reviews]
 *     [--no-reader] [--phases] [--undated]
 * The app is dated first (the review job's pass, lib/feedback/review_dates.ts, marks an app without reviews
 * at its first run), so reads list a period's months by date; --undated: read as an app stored before the
 * date keys (whole, by id).
 * --phases: where the time goes, timed apart on the same rows (parse; mask + hash + analyse each review;
 * KV commits of ready values), beside the import. Prints one line per size and writes
 * bench/results/review_import.json.
 */
import type { Deps } from "../lib/deps.ts";
import { importReviews } from "../lib/feedback/import_reviews.ts";
import { ReviewCache } from "../lib/feedback/review_cache.ts";
import { stampOf, toStored } from "../lib/feedback/store.ts";
import { decodeImport, looksLikeCsv, parseImport } from "../lib/feedback/sources/import.ts";
import { demoReviews } from "../lib/feedback/demo_reviews.ts";
import { loadAnalysis } from "../lib/feedback/analysis/on_demand.ts";
import { keys } from "../lib/store/keys.ts";
import { dateApp } from "../lib/feedback/review_dates.ts";
import type { FeedbackApp } from "../lib/feedback/types.ts";
import process from "node:process";
import { REVIEW_FILLER } from "./review_filler.ts";

const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const SIZES = (flag("rows") ?? "10000,50000").split(",").map(Number);
const DIR = flag("dir") ?? "/tmp/s24/reviews";
const READER = !Deno.args.includes("--no-reader");
const PHASES = Deno.args.includes("--phases");
const UNDATED = Deno.args.includes("--undated");
const READ_EVERY = 250;
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 1);
const ROOT = new URL("../", import.meta.url).pathname;

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (n: number) => Math.round(n / 1048576);

// the shared sentences, and one the store masks (an address)
const FILLER = [
  ...REVIEW_FILLER,
  "My order history disappeared after I reinstalled, contact me at someone@example.com.",
];

const cell = (v: string | number | null) => {
  const s = v === null ? "" : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** N reviews as a CSV file, in the App Store Connect export's columns. */
export function reviewCsv(n: number, seed = 7): Uint8Array {
  const base = [...demoReviews("own", 400, END, seed), ...demoReviews("rival", 100, END, seed + 1)];
  const lines = ["Review ID,Rating,Title,Review,Date,Version,Territory,Nickname,Developer Response"];
  for (let i = 0; i < n; i++) {
    const r = base[i % base.length];
    const extra = [0, 1].map((k) => FILLER[(i * 3 + k * 5) % FILLER.length]).join(" ");
    const at = END - Math.floor(((i * 7919) % n) / n * 365 * DAY);
    lines.push(
      [
        `${2_000_000_000 + i}`,
        r.rating,
        r.title,
        `${r.text} ${extra} (#${i})`,
        new Date(at).toISOString(),
        r.version,
        r.country,
        `${r.author} ${i % 97}`,
        i % 3 === 0 ? "Thanks for writing, we are looking into it." : null,
      ].map(cell).join(","),
    );
  }
  return new TextEncoder().encode(lines.join("\n") + "\n");
}

function rssSampler() {
  let peak = Deno.memoryUsage().rss;
  const id = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 50);
  return { stop: () => (clearInterval(id), peak = Math.max(peak, Deno.memoryUsage().rss), peak) };
}

/** Reads the last 30 days through a cache every READ_EVERY ms until stopped; the time of each read. */
function reader(kv: Deno.Kv, org: string, app: string) {
  const cache = new ReviewCache({ kv } as Deps);
  const times: number[] = [];
  let stamps = 0, last = -1n, running = true;
  const done = (async () => {
    while (running) {
      const t = performance.now();
      await cache.between(org, app, END - 30 * DAY, END + 1);
      times.push(performance.now() - t);
      const s = await stampOf(kv, org, app);
      if (s !== last) stamps++, last = s;
      await new Promise((r) => setTimeout(r, READ_EVERY));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return { times, stamps };
    },
  };
}

const median = (xs: number[]) => xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0;
const p90 = (xs: number[]) => xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] : 0;

async function phases(app: FeedbackApp, bytes: Uint8Array, path: string) {
  await loadAnalysis();
  let t = performance.now();
  const text = decodeImport(bytes);
  const parsed = parseImport(text, looksLikeCsv(text, "text/csv"));
  const parse = performance.now() - t;
  t = performance.now();
  const stored = parsed.reviews.map((x) => toStored(app, "import", x.review));
  const analyse = performance.now() - t;
  for (const f of [path, `${path}-wal`, `${path}-shm`]) await Deno.remove(f).catch(() => {});
  const kv = await Deno.openKv(path);
  t = performance.now();
  for (let i = 0; i < stored.length; i += 10) {
    const ks = stored.slice(i, i + 10).map((r) => keys.feedbackReview(app.org, app.id, r.id));
    const cur = await kv.getMany(ks);
    const op = kv.atomic();
    cur.forEach((c, k) => op.check(c).set(ks[k], stored[i + k]));
    await op.sum(keys.feedbackStamp(app.org, app.id), 1n).commit();
  }
  const commits10 = performance.now() - t;
  kv.close();
  return {
    parse_ms: Math.round(parse),
    analyse_ms: Math.round(analyse),
    kv_commits_of_10_ms: Math.round(commits10),
  };
}

if (import.meta.main) {
  await Deno.mkdir(DIR, { recursive: true });
  await loadAnalysis(); // once per process, as a running instance has it (not counted)
  const results: Record<string, unknown>[] = [];
  for (const n of SIZES) {
    const path = `${DIR}/import_${n}.sqlite3`;
    for (const f of [path, `${path}-wal`, `${path}-shm`]) await Deno.remove(f).catch(() => {});
    const bytes = reviewCsv(n);
    const org = "org_bench", app = { id: `app_${n}`, org, store: "app_store" } as FeedbackApp;
    gc?.();
    const kv = await Deno.openKv(path);
    if (!UNDATED) await dateApp({ kv } as Deps, app, 1);
    const rss0 = Deno.memoryUsage().rss;
    const sampler = rssSampler();
    const read = READER ? reader(kv, org, app.id) : null;
    let t = performance.now();
    const cpu0 = process.cpuUsage();
    const r = await importReviews(kv, app, bytes, "text/csv");
    const ms = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    const during = await read?.stop();
    const peak = sampler.stop();
    if (r.imported !== n) {
      throw new Error(`${n}: imported ${r.imported} (${JSON.stringify(r).slice(0, 200)})`);
    }
    // After: a new instance's first read of the period (cold), then again (warm).
    const cache = new ReviewCache({ kv } as Deps);
    t = performance.now();
    const got = await cache.between(org, app.id, END - 30 * DAY, END + 1);
    const cold = performance.now() - t;
    t = performance.now();
    await cache.between(org, app.id, END - 30 * DAY, END + 1);
    const warm = performance.now() - t;
    // The same file again: every review unchanged (a retry after a failure answers from here on).
    t = performance.now();
    const again = await importReviews(kv, app, bytes, "text/csv");
    const againMs = performance.now() - t;
    if (again.imported !== 0 || again.duplicates !== n) {
      throw new Error(`re-import: ${JSON.stringify(again)}`);
    }
    const stamp = await stampOf(kv, org, app.id);
    kv.close();
    const row: Record<string, unknown> = {
      rows: n,
      dated: !UNDATED,
      csv_mb: +(bytes.length / 1048576).toFixed(1),
      seconds: +(ms / 1000).toFixed(1),
      rows_per_s: Math.round(n / (ms / 1000)),
      // the process's CPU time (this thread, KV's and the reader's): on a shared machine the wall clock also
      // counts the time other processes had the cores
      cpu_seconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
      peak_rss_mb: mb(peak),
      rss_before_mb: mb(rss0),
      stamp_bumps: Number(stamp),
      reads_during: during?.times.length ?? 0,
      read_during_median_ms: Math.round(median(during?.times ?? [])),
      read_during_p90_ms: Math.round(p90(during?.times ?? [])),
      stamps_seen_by_reader: during?.stamps ?? 0,
      period_reviews: got.length,
      read_after_cold_ms: Math.round(cold),
      read_after_warm_ms: +warm.toFixed(2),
      reimport_rows_per_s: Math.round(n / (againMs / 1000)),
    };
    if (PHASES) Object.assign(row, await phases(app, bytes, `${DIR}/phases_${n}.sqlite3`));
    console.log(JSON.stringify(row));
    results.push(row);
  }
  await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
  await Deno.writeTextFile(
    `${ROOT}bench/results/review_import.json`,
    JSON.stringify({ at: new Date().toISOString(), results }, null, 2) + "\n",
  );
}
