/**
 * The self-hosted process's front door. Deno.serve (Deno 2.9) has no header, body or idle timeouts and no
 * hook per connection, and node:http's headersTimeout is not honoured under Deno, so the public port is a
 * small TCP relay in front of Deno.serve on a private loopback port. Per connection it enforces:
 *   - a header deadline: a request's headers complete within `headerMs` of its first byte (else 408);
 *   - an idle deadline: nothing sent either way for `idleMs` closes the connection (keep-alive included),
 *     but only while the wait is the client's: a request that has arrived whole (headers and body) and
 *     has no answer yet is the server's work, however long it takes (a 50,000-row import), not idleness;
 *   - a per-address cap: past `perAddress` open connections from one address the next is refused (503);
 *   - a per-address hold after refusals: an address whose requests keep being refused (400, 408, 413, 422,
 *     431: bodies and framing the guard turns away) past `refusalBudget` in about ten seconds has each next
 *     request held before it is passed on, longer the more it is refused (up to 2 s), so one address sending
 *     its worst bodies as fast as it can spends a few of the server's turns a second, not every other one.
 *     Its answers are the same, only later; a client refused now and then is never held;
 *   - a per-address cap on requests arriving at once: past `arriving` connections of one address in the
 *     middle of sending a request (its headers or body), the next request of that address waits, unread,
 *     until one of them has arrived whole, been answered or closed (its header deadline still runs), so one
 *     address's slow or huge bodies queue behind each other instead of taking the server's turns from others;
 *   - framing errors answered with the spec's Error body: Deno answers a request line or headers it cannot
 *     parse with an empty 400, and a body whose chunked framing (or length) breaks with no answer at all
 *     (the connection just closes); the relay sees either and answers 400 with the Error body itself.
 * Slow bodies are bounded where the body is read (lib/schemas/request_body.ts, bodyDeadline).
 * The app still sees the client's address: the relay's own port on loopback maps back to it.
 * On Deno Deploy the platform terminates connections, so main.ts serves directly there.
 */
import { ConfigError } from "../config.ts";
import { bodyDeadline } from "../schemas/request_body.ts";
import { MAX_HEAD, RequestFraming } from "./request_framing.ts";
import { REFUSAL_BUDGET, RefusalHolds, refused } from "./refusals.ts";
import { ARRIVING, Turnstile } from "./turnstile.ts";

export interface GuardLimits {
  /** how long a request body may take to arrive (lib/schemas/request_body.ts applies it) */
  bodyMs: number;
  headerMs: number;
  idleMs: number;
  perAddress: number;
  /**
   * Refusals one address may have in about ten seconds before its next requests are held (refusals.ts);
   * unset: never held (behind a trusted proxy every connection is the proxy's address).
   */
  refusalBudget?: number;
  /** Requests one address may be sending at once (the next waits, unread); unset: no cap. */
  arriving?: number;
}

export const DEFAULT_GUARD: GuardLimits = {
  bodyMs: 30_000,
  headerMs: 10_000,
  idleMs: 30_000,
  perAddress: 64,
  refusalBudget: REFUSAL_BUDGET,
  arriving: ARRIVING,
};

/**
 * The limits from the environment: HEADER_TIMEOUT_S, BODY_TIMEOUT_S, IDLE_TIMEOUT_S, MAX_CONNECTIONS_PER_ADDRESS. Behind a
 * trusted proxy every connection comes from the proxy, so there the cap is off unless set.
 */
export function guardLimits(env: Record<string, string | undefined>, trustProxy: boolean): GuardLimits {
  const seconds = (name: string, d: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return d * 1000;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 3_600) {
      throw new ConfigError(`${name} must be a whole number of seconds from 1 to 3600, got "${raw}"`);
    }
    return n * 1000;
  };
  const cap = env.MAX_CONNECTIONS_PER_ADDRESS;
  let perAddress = trustProxy ? Infinity : DEFAULT_GUARD.perAddress;
  if (cap !== undefined && cap !== "") {
    perAddress = Number(cap);
    if (!Number.isInteger(perAddress) || perAddress < 1) {
      throw new ConfigError(`MAX_CONNECTIONS_PER_ADDRESS must be a whole number above 0, got "${cap}"`);
    }
  }
  return {
    bodyMs: seconds("BODY_TIMEOUT_S", DEFAULT_GUARD.bodyMs / 1000),
    headerMs: seconds("HEADER_TIMEOUT_S", DEFAULT_GUARD.headerMs / 1000),
    idleMs: seconds("IDLE_TIMEOUT_S", DEFAULT_GUARD.idleMs / 1000),
    perAddress,
    ...(trustProxy ? {} : { refusalBudget: REFUSAL_BUDGET, arriving: ARRIVING }),
  };
}

type Handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;

interface Conn {
  client: Deno.TcpConn;
  inner: Deno.TcpConn | null;
  address: string;
  last: number;
  /** where the client's requests begin and end; its headFrom times the header block in progress */
  framing: RequestFraming;
  /** a request's headers were complete and it has had no answer yet (its first bytes not yet relayed) */
  awaiting: boolean;
  /** the server answered a request whose body was still arriving: the rest is dropped, not passed on */
  dropping: boolean;
  /** the connection is in the middle of sending a request: it holds one of its address's turnstile places */
  arriving: boolean;
  closed: boolean;
}

const LATIN1 = new TextDecoder("latin1");
/** Bytes relayed per read: a 1 MB body crosses in 16 turns of the event loop rather than 64. */
const RELAY_CHUNK = 64 * 1024;
/**
 * How long, and how much of, the rest of a request is read and dropped after the server's answer ended the
 * connection: closing with unread bytes would reset the connection and could lose the answer (a 413 sent
 * before the body was read), but a client that keeps sending past this has had time to read it.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;
/** An answer's status code, from its status line. */
const STATUS = /^HTTP\/1\.1 (\d{3}) /;
/** An interim answer (`100 Continue`): the request's real answer is still to come. */
const INTERIM = /^HTTP\/1\.1 1\d\d [^\r\n]*\r\n\r\n/;

const plain = (status: string, message: string, code = "OPERATION_FAILED") => {
  const body = JSON.stringify({
    error: message,
    code,
    timestamp: new Date().toISOString(),
  });
  return new TextEncoder().encode(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nConnection: close\r\n` +
      `Content-Length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`,
  );
};

/** Deno's own answer to a request line or headers it cannot parse: an empty 400 closing the connection. */
const EMPTY_400 =
  /^HTTP\/1\.1 400 Bad Request\r\ncontent-length: 0\r\n(date: [^\r\n]*\r\n)?connection: close\r\n\r\n$/i;
const FRAMING =
  "the request's framing is malformed (request line, headers, Content-Length or chunked encoding)";

export interface GuardedServer {
  addr: Deno.NetAddr;
  /** open connections by client address (for tests and the bench) */
  open(): number;
  /** bytes from clients passed on to the server, in all (for tests and the bench) */
  relayed(): number;
  /** open connections that have a connection to the server (a client that has sent nothing has none) */
  relaying(): number;
  /** requests held so far after their address's refusals (for tests and the bench) */
  held(): number;
  /** requests that waited so far for a place among their address's requests arriving at once */
  queued(): number;
  shutdown(): Promise<void>;
}

export function serveGuarded(
  opts: { port: number; hostname: string; onListen?: (addr: Deno.NetAddr) => void },
  handler: Handler,
  limits: GuardLimits = DEFAULT_GUARD,
): GuardedServer {
  /** the relay's local port on loopback → the client's address */
  const byRelayPort = new Map<number, Deno.NetAddr>();
  const inner = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req, info) => {
    const client = byRelayPort.get(info.remoteAddr.port);
    return handler(req, client ? { ...info, remoteAddr: client } : info);
  });
  bodyDeadline.ms = limits.bodyMs;
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port });
  const conns = new Set<Conn>();
  const perAddress = new Map<string, number>();
  const holds = new RefusalHolds(limits.refusalBudget ?? Infinity);
  const turnstile = new Turnstile(limits.arriving ?? Infinity);
  let relayed = 0, held = 0;

  const close = (c: Conn) => {
    if (c.closed) return;
    c.closed = true;
    conns.delete(c);
    turnstile.leave(c);
    const n = (perAddress.get(c.address) ?? 1) - 1;
    if (n > 0) perAddress.set(c.address, n);
    else perAddress.delete(c.address);
    if (c.inner) byRelayPort.delete((c.inner.localAddr as Deno.NetAddr).port);
    for (const s of [c.client, c.inner]) {
      try {
        s?.close();
      } catch { /* already closed */ }
    }
  };
  const refuse = async (c: Conn, status: string, message: string, code?: string) => {
    if (refused(Number(status.slice(0, 3)))) holds.refused(c.address, Date.now());
    await writeAll(c.client, plain(status, message, code));
    close(c);
  };

  /**
   * The connection waits on the server, not the client: a request has arrived whole and its answer has not
   * begun. Not while its body is still arriving (a client that stops mid-body is idle: nothing else closes
   * it if the handler reads the body without the body deadline) nor past framing the relay cannot follow.
   */
  const serverWorking = (c: Conn) => c.awaiting && !c.framing.inBody && !c.framing.blind;

  // One sweep a second instead of a timer per connection.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of conns) {
      const from = c.framing.headFrom;
      if (from !== null && now - from > limits.headerMs) {
        void refuse(
          c,
          "408 Request Timeout",
          `request headers not complete within ${limits.headerMs / 1000} s`,
        );
      } else if (now - c.last > limits.idleMs && !serverWorking(c)) close(c);
    }
  }, 1_000);

  /**
   * The server is connected to only once the client has sent its first bytes: an idle socket holds one
   * descriptor and no connection or task inside Deno.serve (a burst of idle sockets costs accepts only).
   */
  const open = async (c: Conn, remote: Deno.NetAddr) => {
    const buf = new Uint8Array(RELAY_CHUNK);
    const first = await c.client.read(buf).catch(() => null);
    if (first === null || c.closed) return close(c);
    const up = await Deno.connect({ hostname: "127.0.0.1", port: inner.addr.port }).catch(() => null);
    if (!up) return close(c);
    c.inner = up;
    byRelayPort.set((up.localAddr as Deno.NetAddr).port, remote);
    if (c.closed) return close(c);
    await relay(c, buf, first);
  };

  /** Relays both ways; `first` bytes of the client's are already in `buf`. */
  const relay = async (c: Conn, buf: Uint8Array, first: number) => {
    const up = c.inner!;
    let upOpen = true;
    const fromClient = (async () => {
      let dropped = 0;
      let pending: number | null = first;
      while (!c.closed) {
        const n = pending ?? await c.client.read(buf).catch(() => null);
        pending = null;
        if (n === null) break;
        if (c.framing.between) {
          // a new request: an address refused again and again waits its turn before it is passed on
          const wait = holds.holdMs(c.address, Date.now());
          if (wait > 0) {
            held++;
            await new Promise((r) => setTimeout(r, wait));
          }
          if (c.closed) break;
          // and waits for a place among its address's requests arriving at once
          await turnstile.enter(c);
          if (c.closed) break;
        }
        c.last = Date.now();
        if (!upOpen || c.dropping) {
          // answered already: the rest is read and dropped, within bounds, never passed on
          if ((dropped += n) > LINGER_BYTES) break;
          continue;
        }
        const fed = c.framing.feed(buf.subarray(0, n), c.last);
        if (fed.tooLarge) {
          await refuse(
            c,
            "431 Request Header Fields Too Large",
            `request headers larger than ${MAX_HEAD} bytes`,
          );
          break;
        }
        if (fed.heads > 0) c.awaiting = true;
        if (c.framing.between) turnstile.leave(c); // arrived whole
        upOpen = await writeAll(up, buf.subarray(0, n));
        if (upOpen) relayed += n;
      }
      try {
        await up.closeWrite();
      } catch { /* gone */ }
    })();
    const fromServer = (async () => {
      const buf = new Uint8Array(RELAY_CHUNK);
      while (!c.closed) {
        const n = await up.read(buf).catch(() => null);
        if (n === null) {
          // the server closed without answering a complete request: its body could not be read (broken
          // chunked framing, a body shorter than its Content-Length): the client still gets an answer
          if (c.awaiting) {
            holds.refused(c.address, Date.now());
            await writeAll(c.client, plain("400 Bad Request", FRAMING, "VALIDATION_ERROR"));
          }
          break;
        }
        c.last = Date.now();
        const start = LATIN1.decode(buf.subarray(0, Math.min(n, 200)));
        // a read that is exactly Deno's empty 400 (on a kept-alive connection too: a later request's headers)
        if (n < 200 && EMPTY_400.test(start)) {
          holds.refused(c.address, Date.now());
          await writeAll(c.client, plain("400 Bad Request", FRAMING, "VALIDATION_ERROR"));
          break;
        }
        const interim = INTERIM.exec(start);
        if (c.awaiting && !(interim && interim[0].length === n)) {
          c.awaiting = false;
          if (refused(Number(STATUS.exec(start)?.[1]))) holds.refused(c.address, c.last);
          // answered before its body ended (a refusal): the rest of the body is not passed on, and the
          // server, its body ended early, closes once its answer is out
          if (c.framing.inBody) {
            c.dropping = true;
            turnstile.leave(c);
            try {
              await up.closeWrite();
            } catch { /* gone */ }
          }
        }
        if (!(await writeAll(c.client, buf.subarray(0, n)))) break;
      }
    })();
    await fromServer;
    // the answer is complete: end our side, let the client finish sending (bounded), then close
    try {
      await c.client.closeWrite();
    } catch { /* gone */ }
    await Promise.race([fromClient, new Promise((r) => setTimeout(r, LINGER_MS))]);
    close(c);
  };

  const accept = (async () => {
    for await (const client of listener) {
      const remote = client.remoteAddr as Deno.NetAddr;
      const c: Conn = {
        client,
        inner: null,
        address: remote.hostname,
        last: Date.now(),
        framing: new RequestFraming(Date.now()),
        awaiting: false,
        dropping: false,
        arriving: false,
        closed: false,
      };
      conns.add(c);
      const count = (perAddress.get(c.address) ?? 0) + 1;
      perAddress.set(c.address, count);
      if (count > limits.perAddress) {
        void refuse(
          c,
          "503 Service Unavailable",
          `more than ${limits.perAddress} connections from one address`,
        );
        continue;
      }
      open(c, remote).catch(() => close(c));
    }
  })();

  const addr = listener.addr as Deno.NetAddr;
  opts.onListen?.(addr);
  return {
    addr,
    open: () => conns.size,
    relayed: () => relayed,
    relaying: () => [...conns].filter((c) => c.inner !== null).length,
    held: () => held,
    queued: () => turnstile.waited,
    async shutdown() {
      clearInterval(sweep);
      listener.close();
      for (const c of [...conns]) close(c);
      await accept.catch(() => {});
      await inner.shutdown();
    },
  };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  try {
    let at = 0;
    while (at < bytes.length) at += await conn.write(bytes.subarray(at));
    return true;
  } catch {
    return false;
  }
}
