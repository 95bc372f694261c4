/**
 * A question's working memory: what it holds while it answers beyond what the engine's caches keep
 * (sections read for it alone, joins, arrays by unit). Without a bound it grows with the period's sessions,
 * and a question past what the process has ends every request the process serves (a Deno Deploy isolate out
 * of memory is restarted). So each question counts what it holds, in live bytes: an array taken with `hold`
 * counts until it is released (`let go`, called by packed_arrays.ts `release` before it frees a buffer) or the
 * question ends. `WorkingMemory` sums every question answering now (the engine counts that sum in its one
 * budget: its caches make room, columns/source.ts) and refuses a question whose own bytes would pass the
 * limit, before it holds more (a 422 naming the setting; its other questions and every other request go on).
 * Outside a question (compaction, the generator) nothing is counted.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { invalid } from "./errors.ts";

const MB = 1048576;
const sized = (bytes: number) =>
  bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.ceil(bytes / 1024)} kB`;

/** One question's count. */
class Account {
  live = 0;
  peak = 0;
  closed = false;
  constructor(readonly memory: WorkingMemory) {}
}

const current = new AsyncLocalStorage<Account>();
/** each held buffer's question, until it is let go */
const holders = new WeakMap<ArrayBufferLike, { account: Account; bytes: number }>();

export class WorkingMemory {
  /** live bytes of every question answering now */
  total = 0;
  /** the most one question held, and all of them together, since made (benches read them) */
  peakQuestion = 0;
  peakTotal = 0;
  /**
   * `limit`: the most one question may hold; `grew`: called when the total grew (the engine's caches make
   * room); `setting`: what a refusal names for raising the limit.
   */
  constructor(
    readonly limit: number,
    private grew: () => void = () => {},
    private setting = "QUESTION_MEMORY_MB",
  ) {}

  /** Runs `answer` as one question (a question asked inside another is counted in the outer one). */
  async run<T>(answer: () => Promise<T>): Promise<T> {
    const outer = current.getStore();
    if (outer && outer.memory === this && !outer.closed) return await answer();
    const account = new Account(this);
    try {
      return await current.run(account, answer);
    } finally {
      account.closed = true;
      this.total -= account.live;
      account.live = 0;
    }
  }

  /** Counts `bytes` against the question (throws the refusal when past the limit). */
  take(account: Account, bytes: number): void {
    if (account.live + bytes > this.limit) {
      throw invalid(
        `this question needs more than the ${sized(this.limit)} of working memory one question may hold ` +
          `here (${this.setting}): ask a shorter period or fewer breakdowns, or raise the setting`,
      );
    }
    account.live += bytes;
    this.total += bytes;
    if (account.live > account.peak) account.peak = account.live;
    if (account.live > this.peakQuestion) this.peakQuestion = account.live;
    if (this.total > this.peakTotal) this.peakTotal = this.total;
    this.grew();
  }

  /** The bytes the question running now holds (0 outside one). */
  static held(): number {
    return current.getStore()?.live ?? 0;
  }

  /** What the question running now may still hold before its refusal (Infinity outside one). */
  static room(): number {
    const a = current.getStore();
    return a && !a.closed ? a.memory.limit - a.live : Infinity;
  }
}

/**
 * Counts the buffers under these views against the question running now (each buffer once), until they are
 * let go or the question ends; outside a question, nothing. Throws the refusal when past the limit.
 */
export function hold(views: Iterable<ArrayBufferView | null | undefined>): void {
  const account = current.getStore();
  if (!account || account.closed) return;
  for (const v of views) {
    const b = v?.buffer;
    if (!b || holders.has(b) || !b.byteLength) continue;
    account.memory.take(account, b.byteLength);
    holders.set(b, { account, bytes: b.byteLength });
  }
}

/**
 * Counts `bytes` the question running now is about to hold until it ends (memory not yet made: counted first
 * so that a question past the limit is refused before it reads); outside a question, nothing.
 */
export function holdBytes(bytes: number): void {
  const account = current.getStore();
  if (account && !account.closed && bytes > 0) account.memory.take(account, bytes);
}

/** Counts the arrays a decoded object holds (its own values and those of objects it holds, two levels). */
export function holdArraysOf(x: object | null | undefined): void {
  if (x) hold(arraysOf(x));
}

/** Stops counting buffers a cache now keeps (the cache weighs them): the question no longer holds them. */
export function keptArraysOf(x: object | null | undefined): void {
  if (x) { for (const v of arraysOf(x)) letGo(v.buffer); }
}

/** A buffer is freed or kept elsewhere: its question no longer counts it. */
export function letGo(buffer: ArrayBufferLike): void {
  const held = holders.get(buffer);
  if (!held) return;
  holders.delete(buffer);
  const { account, bytes } = held;
  if (account.closed) return;
  account.live -= bytes;
  account.memory.total -= bytes;
}

function arraysOf(x: object): ArrayBufferView[] {
  const views: ArrayBufferView[] = [];
  const walk = (o: object, depth: number) => {
    for (const v of Object.values(o)) {
      if (ArrayBuffer.isView(v)) views.push(v);
      else if (Array.isArray(v)) {
        for (const e of v) if (ArrayBuffer.isView(e)) views.push(e);
      } else if (depth > 0 && v && typeof v === "object") walk(v, depth - 1);
    }
  };
  walk(x, 1);
  return views;
}
