/**
 * The memory and speed of the review cache (lib/feedback/review_cache.ts): a KV file is filled with APPS apps of
 * PER_APP stored reviews each (texts of a few hundred characters built from the demo's reviews, analysed as the
 * store analyses them, dates over a year), then each app is read through one ReviewCache in turn: a cold get
 * (listed from KV), the same get again (the stamp unchanged), then, after a write (the stamp bumped), a read of the
 * app's last 30 days (`between`, cold) and of the 30 days before them. After each app: the process's resident set and V8's heap used (after a full collection when
 * run with --expose-gc), the reviews read so far, and what the cache says it holds.
 *   deno run -A --v8-flags=--expose-gc bench/review_cache.ts [--apps 8] [--per-app 50000]
 *     [--kv /tmp/review_cache_bench.sqlite3] [--budget-mb N] [--periods-only]
 * The KV file is kept and reused when it already holds the apps asked for (filling 400,000 reviews takes about
 * a minute). --budget-mb: the cache's byte budget (default: the cache's own). --periods-only: no get, only the
 * two periods (what the feedback tools would ask through `between`), so the resident set shows that path alone.
 */
import type { Deps } from "../lib/deps.ts";
import { ReviewCache } from "../lib/feedback/review_cache.ts";
import { demoReviews } from "../lib/feedback/demo_reviews.ts";
import { toStored } from "../lib/feedback/store.ts";
import { loadAnalysis } from "../lib/feedback/analysis/on_demand.ts";
import { keys } from "../lib/store/keys.ts";
import type { FeedbackApp, StoredReview } from "../lib/feedback/types.ts";
import { REVIEW_FILLER } from "./review_filler.ts";

const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const APPS = Number(flag("apps") ?? 8);
const PER_APP = Number(flag("per-app") ?? 50_000);
const KV_PATH = flag("kv") ?? "/tmp/review_cache_bench.sqlite3";
const BUDGET_MB = flag("budget-mb");
const PERIODS_ONLY = Deno.args.includes("--periods-only");
const ORG = "org_bench";
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 1);

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (n: number) => (n / 1048576).toFixed(0);
function memory() {
  gc?.();
  const m = Deno.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

const FILLER = REVIEW_FILLER;

/** A pool of stored reviews as the store makes them (masked, hashed, analysed), to vary per review. */
async function pool(app: FeedbackApp): Promise<StoredReview[]> {
  await loadAnalysis();
  const incoming = demoReviews("own", 300, END, 7).map((r, i) => {
    const extra = [0, 1, 2].map((k) => FILLER[(i + k * 2) % FILLER.length]).join(" ");
    return { ...r, text: `${r.text} ${extra}` };
  });
  return incoming.map((r) => toStored(app, "import", r));
}

async function fill(kv: Deno.Kv) {
  const marker = ["bench_review_cache", "filled"];
  const have = (await kv.get<{ apps: number; per: number }>(marker)).value;
  if (have && have.apps >= APPS && have.per === PER_APP) return;
  const t0 = performance.now();
  for (let a = 0; a < APPS; a++) {
    const app = { id: `app_${a}`, org: ORG, store: "app_store" } as FeedbackApp;
    const base = await pool(app);
    for (let i = 0; i < PER_APP; i += 100) {
      const op = kv.atomic();
      for (let k = i; k < Math.min(PER_APP, i + 100); k++) {
        const p = base[k % base.length];
        const at = END - Math.floor(((k * 7919) % PER_APP) / PER_APP * 365 * DAY);
        const r: StoredReview = {
          ...p,
          id: `${1_000_000_000 + k}`,
          text: `${p.text} (#${k})`,
          created_at: at,
          updated_at: at,
          content_hash: `${p.content_hash.slice(0, 56)}${k.toString(16).padStart(8, "0")}`,
        };
        op.set(keys.feedbackReview(ORG, app.id, r.id), r);
      }
      await op.commit();
    }
    console.log(`filled app_${a}: ${PER_APP} reviews (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await kv.set(marker, { apps: APPS, per: PER_APP });
}

const kv = await Deno.openKv(KV_PATH);
await fill(kv);
const sample = (await kv.get<StoredReview>(keys.feedbackReview(ORG, "app_0", "1000000000"))).value!;
console.log(
  `review: text ${sample.text.length} chars, title ${sample.title?.length ?? 0}, ` +
    `${JSON.stringify(sample).length} bytes as JSON`,
);

const deps = { kv } as Deps;
const cache = new ReviewCache(deps, BUDGET_MB ? Number(BUDGET_MB) * 1048576 : undefined);
const start = memory();
console.log(`start: rss ${mb(start.rss)} MB, heap ${mb(start.heap)} MB${gc ? "" : " (no --expose-gc)"}`);
console.log(
  "reviews read | get cold | get again | 30 days cold (reviews) | 30 days before | rss MB | heap MB | cache holds MB",
);
let read = 0;
for (let a = 0; a < APPS; a++) {
  const id = `app_${a}`;
  let t = performance.now();
  const n = PERIODS_ONLY ? PER_APP : (await cache.get(ORG, id)).length; // the answer is not held past this line
  const cold = performance.now() - t;
  t = performance.now();
  if (!PERIODS_ONLY) await cache.get(ORG, id);
  const warm = performance.now() - t;
  if (n !== PER_APP) throw new Error(`${id}: ${n} reviews, expected ${PER_APP}`);
  read += n;
  // A write in between (the stamp bumped) makes the period's first read cold again.
  await kv.atomic().sum(keys.feedbackStamp(ORG, id), 1n).commit();
  t = performance.now();
  const recent = (await cache.between(ORG, id, END - 30 * DAY, END + 1)).length;
  const periodCold = performance.now() - t;
  t = performance.now();
  await cache.between(ORG, id, END - 60 * DAY, END - 30 * DAY); // the previous period
  const periodWarm = performance.now() - t;
  const m = memory();
  const h = cache.bytes;
  const cells = [
    String(read).padStart(12),
    `${cold.toFixed(0).padStart(5)} ms`,
    `${warm.toFixed(1).padStart(7)} ms`,
    `${periodCold.toFixed(0).padStart(8)} ms (${recent})`.padEnd(22),
    `${periodWarm.toFixed(1).padStart(11)} ms`,
    mb(m.rss).padStart(6),
    mb(m.heap).padStart(7),
    mb(h),
  ];
  console.log(cells.join(" | "));
}
kv.close();
