/**
 * History import: NDJSON streamed line by line (memory stays bounded whatever the size), each line through
 * the live pipelines with its own time. Events go to `ingestWebEvents` in groups of consecutive lines that
 * share an arrival (receive time, address, user agent), as one SDK batch did; hits go to `ingestHits` with
 * their own timestamp as receive time, so any age is accepted. Every bad line is counted; the first 100
 * are listed with their line number and reason.
 */
import type { AppContext } from "../context.ts";
import type { EnvName, Org, Touchpoint } from "../store/records.ts";
import { keys } from "../store/keys.ts";
import { BehaviorEvent, type BehaviorEventInput } from "../schemas/events.ts";
import { CrawlEvent } from "../schemas/server_events.ts";
import { describeZodError } from "../schemas/zod_errors.ts";
import { type Arrival, ingestWebEvents } from "./web.ts";
import { afterWebIngest } from "./after_web.ts";
import { ingestHits } from "./hits.ts";

export interface ImportTarget {
  org: Org;
  touchpoint: Touchpoint;
  env: EnvName;
}

export interface ImportResult {
  imported: number;
  duplicates: number;
  /** the first 100 bad lines */
  rejected: { line: number; error: string }[];
  /** all bad lines */
  rejected_total: number;
}

const MAX_LINE_BYTES = 1024 * 1024;
const MAX_LISTED = 100;
const GROUP = 200;

/** Splits a byte stream into lines without holding more than one line (capped) in memory. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<{ text: string | null; n: number }> {
  // The cast keeps one program type-checkable when Node's stream types are loaded beside Deno's (sdk/server tests).
  const reader = body.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>).getReader();
  let buf = "", n = 0, tooLong = false;
  while (true) {
    const { done, value } = await reader.read();
    if (value) buf += value;
    let at: number;
    while ((at = buf.indexOf("\n")) >= 0) {
      n++;
      const text = buf.slice(0, at);
      buf = buf.slice(at + 1);
      yield { text: tooLong ? null : text, n };
      tooLong = false;
    }
    if (buf.length > MAX_LINE_BYTES) {
      tooLong = true; // keep reading to the line's end, but not its bytes
      buf = "";
    }
    if (done) break;
  }
  if (buf.trim() || tooLong) yield { text: tooLong ? null : buf, n: n + 1 };
}

function receiveTime(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") {
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

export async function importNdjson(
  ctx: AppContext,
  target: ImportTarget,
  body: ReadableStream<Uint8Array>,
): Promise<ImportResult> {
  const { deps } = ctx;
  const result: ImportResult = { imported: 0, duplicates: 0, rejected: [], rejected_total: 0 };
  const reject = (line: number, error: string) => {
    result.rejected_total++;
    if (result.rejected.length < MAX_LISTED) result.rejected.push({ line, error });
  };
  const touchpoints: Touchpoint[] = [];
  for await (const e of deps.kv.list<Touchpoint>({ prefix: keys.touchpoints(target.org.id) })) {
    touchpoints.push(e.value);
  }

  let group: BehaviorEventInput[] = [];
  let arrival: Arrival | null = null;
  const flushEvents = async () => {
    if (!group.length || !arrival) return;
    const r = await ingestWebEvents(ctx, target, group, arrival);
    await afterWebIngest(ctx, r, arrival);
    result.imported += r.stored;
    result.duplicates += r.duplicates;
    group = [];
  };

  const importHit = async (n: number, hit: Record<string, unknown>) => {
    const at = typeof hit.timestamp === "string" ? Date.parse(hit.timestamp) : deps.clock.now();
    const r = await ingestHits(deps, {
      org: target.org.id,
      touchpoint: target.touchpoint.id,
      env: target.env,
      touchpoints,
      receivedAt: at,
      clockOffsetMs: 0,
    }, [hit]);
    result.imported += r.accepted;
    result.duplicates += r.duplicates;
    const why = (Object.keys(r.rejected) as (keyof typeof r.rejected)[]).find((k) => r.rejected[k] > 0);
    if (why) {
      reject(
        n,
        why === "invalid"
          ? "invalid hit"
          : why === "unknown_host"
          ? "host is not this environment's domain"
          : "user agent is not a crawler",
      );
    }
  };

  for await (const { text, n } of lines(body)) {
    if (text === null) {
      reject(n, `line is longer than ${MAX_LINE_BYTES} bytes`);
      continue;
    }
    if (!text.trim()) continue;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(text);
      if (typeof item !== "object" || item === null || Array.isArray(item)) throw new Error();
    } catch {
      reject(n, "not a JSON object");
      continue;
    }
    const { kind, received_at, ip, user_agent, referrer: _referrer, ...rest } = item;
    if (kind === "hit") {
      await flushEvents();
      const { kind: _kind, ...hit } = item; // every other field is the CrawlEvent
      const parsed = CrawlEvent.safeParse(hit);
      if (!parsed.success) reject(n, describeZodError(parsed.error));
      else await importHit(n, hit);
      continue;
    }
    if (kind !== "event") {
      reject(n, 'kind must be "event" or "hit"');
      continue;
    }
    const at = receiveTime(received_at);
    if (at === null) {
      reject(n, "received_at: must be an ISO 8601 date-time or epoch milliseconds");
      continue;
    }
    const parsed = BehaviorEvent.safeParse(rest);
    if (!parsed.success) {
      reject(n, describeZodError(parsed.error));
      continue;
    }
    const next: Arrival = {
      receivedAt: at,
      ip: typeof ip === "string" ? ip : null,
      userAgent: typeof user_agent === "string" ? user_agent : null,
    };
    if (
      !arrival || arrival.receivedAt !== next.receivedAt || arrival.ip !== next.ip ||
      arrival.userAgent !== next.userAgent || group.length >= GROUP
    ) {
      await flushEvents();
      arrival = next;
    }
    group.push(parsed.data);
  }
  await flushEvents();
  return result;
}
