/**
 * Which days of an environment hold events the web SDK sampled (its `sampleRate`, sent as
 * `context.sample_rate`), with the lowest rate of each day. Counts are never scaled (the spec keeps counts
 * exact); answers whose period touches such a day say so (pipeline/notices.ts). One KV record per
 * environment, written only when a day or a lower rate is new to this instance, so ingest pays nothing
 * per event and a question reads one record.
 */
import type { Deps } from "../deps.ts";
import { dayNumber, keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";

/** day number (UTC days since 1970) → the lowest sample rate seen that day */
export type SampledDays = Record<string, number>;

/** Days kept: the longest plan history. */
const KEEP_DAYS = 1_100;
const MAX_KNOWN = 10_000;

/** A rate the SDK could have sampled at: a number above 0 and below 1 (1 or none is every event). */
export function sampleRateOf(context: unknown): number | null {
  const r = (context as { sample_rate?: unknown } | null | undefined)?.sample_rate;
  return typeof r === "number" && r > 0 && r < 1 ? r : null;
}

/** The process's record of what it already wrote (createContext makes the one). */
export class SampledMarks {
  #written = new Map<string, number>();
  constructor(private deps: Pick<Deps, "kv" | "log">) {}

  /** Notes that events received at `at` were sampled at `rate`; a write only when this is news here. */
  async note(org: string, env: EnvName, at: number, rate: number): Promise<void> {
    const day = dayNumber(at);
    const id = `${org}\u0000${env}\u0000${day}`;
    const known = this.#written.get(id);
    if (known !== undefined && known <= rate) return;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const cur = await this.deps.kv.get<SampledDays>(keys.sampled(org, env));
        const days: SampledDays = { ...cur.value };
        const lowest = Math.min(days[day] ?? 1, rate);
        if (days[day] === lowest) break;
        days[day] = lowest;
        for (const d of Object.keys(days)) if (Number(d) < day - KEEP_DAYS) delete days[d];
        const ok = await this.deps.kv.atomic().check(cur).set(keys.sampled(org, env), days).commit();
        if (ok.ok) break;
      }
      if (this.#written.size > MAX_KNOWN) this.#written.clear();
      this.#written.set(id, Math.min(known ?? 1, rate));
    } catch (err) {
      // the events are stored; a missing note is written again by the next sampled batch
      this.deps.log.warn("sampled marker not written", { org, env, error: String(err) });
    }
  }
}

/** The lowest rate and the number of sampled days between `from` and `to` (ms, to exclusive); null if none. */
export async function sampledBetween(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  windows: { from: number; to: number }[],
): Promise<{ days: number; lowest: number } | null> {
  const days = (await kv.get<SampledDays>(keys.sampled(org, env))).value;
  if (!days) return null;
  let n = 0, lowest = 1;
  for (const [d, rate] of Object.entries(days)) {
    const start = Number(d) * 86_400_000;
    if (!windows.some((w) => start < w.to && start + 86_400_000 > w.from)) continue;
    n++;
    lowest = Math.min(lowest, rate);
  }
  return n ? { days: n, lowest } : null;
}
