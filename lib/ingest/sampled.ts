/**
 * Which days of a touchpoint's environment hold events the web SDK sampled (its `sampleRate`, sent as
 * `context.sample_rate`), with the lowest rate of each day. Counts are never scaled (the spec keeps counts
 * exact); answers about that touchpoint (or about every touchpoint) whose period touches such a day say so
 * (pipeline/notices.ts). One KV record per touchpoint and environment, written only when a day or a lower
 * rate is new to this instance, so ingest pays nothing per event and a question reads one record (or, over
 * every touchpoint, one short list).
 *
 * The mark is the touchpoint's, not the organization's: the public key that sends it is a website's and is
 * public, so one event from anyone holding it must not put a notice on the answers of the organization's
 * other websites and apps. Records written before (one per organization and environment, at keys.sampled)
 * stay readable: they do not say which touchpoint, so they are read for websites (where the web SDK runs) and
 * for answers over every touchpoint, never for an app; a value there that is not a map of days to rates is no
 * mark.
 */
import type { Deps } from "../deps.ts";
import { dayNumber, keys } from "../store/keys.ts";
import type { EnvName, TouchpointKind } from "../store/records.ts";

/** day number (UTC days since 1970) → the lowest sample rate seen that day */
export type SampledDays = Record<string, number>;

/** Days kept: the longest plan history. */
const KEEP_DAYS = 1_100;
const MAX_KNOWN = 10_000;

/**
 * The lowest rate taken as said: 1 visitor in 10,000. The web SDK's `sampleRate` is "a share of visitors, 0
 * to 1" (sdk/web/src/config.ts) with no floor, so a lower one is not refused (the events are a site's real
 * traffic) but noted as this floor, and the notice says "or lower". Below it a site sends next to nothing,
 * and a rate such as 1e-320 (a subnormal, no one's setting) would print as "0%".
 */
export const SAMPLE_RATE_FLOOR = 0.0001;

/**
 * A rate the SDK could have sampled at: a finite number above 0 and below 1 (1 or none is every event; 0 or
 * less sends nothing), raised to SAMPLE_RATE_FLOOR when below it. Anything else (a string, an object) is no
 * rate. JSON holds no NaN, and 1e400 (Infinity) is refused by the body's limits before this.
 */
export function sampleRateOf(context: unknown): number | null {
  const r = (context as { sample_rate?: unknown } | null | undefined)?.sample_rate;
  return typeof r === "number" && Number.isFinite(r) && r > 0 && r < 1
    ? Math.max(r, SAMPLE_RATE_FLOOR)
    : null;
}

/** The record of one touchpoint's environment (under the old per-environment key, which names none). */
export const sampledKey = (org: string, env: EnvName, touchpoint: string) =>
  [...keys.sampled(org, env), touchpoint] as const;

/** The process's record of what it already wrote (createContext makes the one). */
export class SampledMarks {
  #written = new Map<string, number>();
  constructor(private deps: Pick<Deps, "kv" | "log">) {}

  /** Notes that `touchpoint`'s events received at `at` were sampled at `rate`; written only when new here. */
  async note(org: string, env: EnvName, at: number, rate: number, touchpoint: string): Promise<void> {
    const day = dayNumber(at);
    const id = `${org}\u0000${env}\u0000${touchpoint}\u0000${day}`;
    const known = this.#written.get(id);
    if (known !== undefined && known <= rate) return;
    const key = sampledKey(org, env, touchpoint);
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const cur = await this.deps.kv.get<SampledDays>(key);
        const days: SampledDays = { ...readDays(cur.value) };
        const lowest = Math.min(days[day] ?? 1, rate);
        if (days[day] === lowest) break;
        days[day] = lowest;
        for (const d of Object.keys(days)) if (Number(d) < day - KEEP_DAYS) delete days[d];
        const ok = await this.deps.kv.atomic().check(cur).set(key, days).commit();
        if (ok.ok) break;
      }
      if (this.#written.size > MAX_KNOWN) this.#written.clear();
      this.#written.set(id, Math.min(known ?? 1, rate));
    } catch (err) {
      // the events are stored; a missing note is written again by the next sampled batch
      this.deps.log.warn("sampled marker not written", { org, env, touchpoint, error: String(err) });
    }
  }
}

/**
 * The days of a stored record that read as a day and a rate; anything else in it (or a record that is not an
 * object of them) is left out, so an old or damaged record is a smaller mark, never a failed answer.
 */
function readDays(value: unknown): SampledDays {
  const out: SampledDays = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [d, rate] of Object.entries(value)) {
    if (
      !/^\d{1,7}$/.test(d) || typeof rate !== "number" || !Number.isFinite(rate) || rate <= 0 || rate >= 1
    ) {
      continue;
    }
    out[d] = Math.max(rate, SAMPLE_RATE_FLOOR);
  }
  return out;
}

/** Which touchpoints' marks an answer reads: one (with its kind), or every touchpoint of the environment. */
export type SampledOf = { id: string; kind: TouchpointKind } | "all";

/**
 * The lowest rate and the number of sampled days between `from` and `to` (ms, to exclusive) of one touchpoint
 * (its record, and for a website the old per-environment one) or of every touchpoint; null if none.
 */
export async function sampledBetween(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  of: SampledOf,
  windows: { from: number; to: number }[],
): Promise<{ days: number; lowest: number } | null> {
  const records: unknown[] = [];
  if (of === "all" || of.kind === "website") records.push((await kv.get(keys.sampled(org, env))).value);
  if (of === "all") {
    for await (const e of kv.list({ prefix: keys.sampled(org, env) })) {
      records.push(e.value);
    }
  } else {
    records.push((await kv.get(sampledKey(org, env, of.id))).value);
  }
  // the lowest rate of each day, over every record read
  const byDay = new Map<number, number>();
  for (const value of records) {
    for (const [d, rate] of Object.entries(readDays(value))) {
      const day = Number(d);
      byDay.set(day, Math.min(byDay.get(day) ?? 1, rate));
    }
  }
  let n = 0, lowest = 1;
  for (const [day, rate] of byDay) {
    const start = day * 86_400_000;
    if (!windows.some((w) => start < w.to && start + 86_400_000 > w.from)) continue;
    n++;
    lowest = Math.min(lowest, rate);
  }
  return n ? { days: n, lowest } : null;
}
