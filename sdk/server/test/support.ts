/** Test doubles shared by the SDK tests: a fake clock with timers, a scripted endpoint, a collecting logger. */
import type { CrawlHit, Logger, SeenRequest, SeenResponse, Timers } from "../src/index.ts";

/** Lets pending promise chains (fetch replies, awaits in the sender) run to their next timer. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

interface Task {
  at: number;
  id: number;
  fn: () => void;
}

export class FakeTimers implements Timers {
  private time: number;
  private nextId = 1;
  private tasks = new Map<number, Task>();

  constructor(start = Date.parse("2026-11-20T12:00:00Z")) {
    this.time = start;
  }
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.tasks.set(id, { at: this.time + Math.max(0, ms), id, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.tasks.delete(handle as number);
  }
  unref(): void {}

  /** Moves time forward, firing due timers in order and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = [...this.tasks.values()].filter((t) => t.at <= end).sort((
        a,
        b,
      ) => a.at - b.at || a.id - b.id);
      if (due.length === 0) break;
      const task = due[0];
      this.tasks.delete(task.id);
      this.time = Math.max(this.time, task.at);
      task.fn();
    }
    this.time = end;
    await settle();
  }
}

export type Reply =
  | number
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | "network"
  | "hang";

export interface Call {
  url: string;
  at: number;
  headers: Record<string, string>;
  body: {
    sdk?: { name?: string; version?: string };
    sent_at?: string;
    events: CrawlHit[];
  };
  bytes: number;
}

/** A fake service endpoint: answers each request with the next scripted reply, then 202. */
export function scriptedEndpoint(timers: Timers, replies: Reply[] = []) {
  const calls: Call[] = [];
  const script = [...replies];
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    const body = String(init.body);
    calls.push({
      url,
      at: timers.now(),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: JSON.parse(body),
      bytes: new TextEncoder().encode(body).length,
    });
    const reply = script.length > 0 ? script.shift()! : 202;
    if (reply === "network") {
      return Promise.reject(new TypeError("fetch failed: connection refused"));
    }
    if (reply === "hang") {
      return new Promise((_, reject) => {
        init.signal?.addEventListener(
          "abort",
          () => reject(new DOMException("aborted", "AbortError")),
        );
      });
    }
    const { status, headers, body: replyBody } = typeof reply === "number" ? { status: reply } : reply;
    const events = calls[calls.length - 1].body.events.length;
    const json = replyBody ??
      (status === 202 ? { accepted: events, duplicates: 0, rejected: {} } : undefined);
    return Promise.resolve(
      new Response(json === undefined ? null : JSON.stringify(json), {
        status,
        headers: headers ?? {},
      }),
    );
  };
  return { fetch, calls };
}

export function collectingLogger(): Logger & {
  warnings: string[];
  errors: string[];
} {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    warn: (m) => void warnings.push(m),
    error: (m) => void errors.push(m),
  };
}

export interface SeenOptions {
  method?: string;
  status?: number | null;
  contentType?: string | null;
  headers?: Record<string, string>;
  socketIp?: string | null;
}

/** One finished exchange as an adapter would hand it to the reporter. */
export function seen(
  url: string,
  userAgent: string | null,
  o: SeenOptions = {},
): [SeenRequest, SeenResponse] {
  const headers = new Headers(o.headers ?? {});
  if (userAgent !== null) headers.set("user-agent", userAgent);
  if (!headers.has("host") && url.startsWith("/")) {
    headers.set("host", "acme.test");
  }
  return [
    {
      method: o.method ?? "GET",
      url,
      headers,
      socketIp: "socketIp" in o ? o.socketIp : "203.0.113.7",
    },
    {
      status: o.status === undefined ? 200 : o.status,
      contentType: o.contentType === undefined ? "text/html; charset=utf-8" : o.contentType,
    },
  ];
}

export const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
export const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
