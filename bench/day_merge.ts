/**
 * What compaction's merge of one closed day costs: a day of generated events written as parts of 50,000 rows
 * (as compaction leaves a busy day before it closes), then merged column by column into one part
 * (lib/parts/merge_events.ts, lib/jobs/compact.ts). Prints the merge's wall time, the process's peak RSS
 * before and after it, and the parts before and after. With `--kv file` the day is written to that file by
 * one run and merged by the next (a fresh process: the peak is the merge's alone).
 *   deno run -A bench/day_merge.ts [--events 333000] [--part-rows 50000] [--kv /tmp/day.sqlite3]
 */
import { compact } from "../lib/jobs/compact.ts";
import { generateSite } from "../lib/demo/site.ts";
import { listParts } from "../lib/parts/store.ts";
import { benchDeps } from "./site.ts";
import { FakeClock } from "../lib/clock.ts";
import { resetPeak, rss } from "./rss.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const EVENTS = arg("events", 333_000);
const DAY = 86_400_000;
const END = Date.parse("2026-11-20T00:00:00Z");

const kvAt = Deno.args.indexOf("--kv");
const dir = kvAt >= 0 ? null : await Deno.makeTempDir({ prefix: "day_merge" });
const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : Deno.args[kvAt + 1]);
const clock = new FakeClock(END + DAY / 2);
const deps = benchDeps(kv, clock);
try {
  const rows = async () => (await listParts(kv, "o", "production", "ev")).map((p) => p.meta.rows);
  const written = (await rows()).length > 0;
  if (!written) {
    await generateSite(deps, {
      org: "o",
      touchpoint: "tp",
      events: EVENTS,
      visitors: Math.round(EVENTS / 10),
      hits: 0,
      days: 1,
      seed: 1,
      end: END,
      direct: true,
      partRows: arg("part-rows", 50_000),
      dedupeKeys: false,
    });
    if (!dir) {
      console.log(`${EVENTS} events written as ${(await rows()).length} parts; run again to merge them`);
      Deno.exit(0);
    }
  }
  const before = await rows();
  // what generating held is garbage now: the peak of the merge alone is read against a fresh high-water mark
  (globalThis as { gc?: () => void }).gc?.();
  await resetPeak();
  const rssBefore = (await rss())?.peak ?? null;
  // the longest the event loop waited (ingest shares it with compaction): a 1 ms ticker's largest gap
  let last = performance.now(), pause = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    pause = Math.max(pause, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await compact(deps, "o", "production", "ev", { graceMs: 0 });
  const ms = Math.round(performance.now() - t0);
  clearInterval(ticker);
  console.log(
    JSON.stringify({
      events: EVENTS,
      parts_before: before,
      parts_after: await rows(),
      merge_ms: ms,
      longest_pause_ms: Math.round(pause),
      peak_rss_mb_before: rssBefore,
      peak_rss_mb_after: (await rss())?.peak ?? null,
    }),
  );
} finally {
  kv.close();
  if (dir) await Deno.remove(dir, { recursive: true });
}
