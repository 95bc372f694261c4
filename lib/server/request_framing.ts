/**
 * Where a client's requests begin and end in the bytes it sends, for the connection guard's relay: the
 * header block, then a body of Content-Length bytes or chunked framing. The relay uses it to time each
 * request's headers from their first byte (keep-alive and pipelined requests too), to tell a body still
 * arriving from the next request (after a `100 Continue` as well), and to stop passing on the rest of a body
 * the server has already answered (a 413 or 422 sent before the body was read).
 * It reads no more than it must: header text up to MAX_HEAD, chunk-size lines, and counts the rest.
 */

/** Header blocks past this are refused by the relay (431): no endpoint needs more. */
export const MAX_HEAD = 64 * 1024;
const MAX_SIZE_LINE = 1_024;
const LATIN1 = new TextDecoder("latin1");

type Phase = "idle" | "head" | "body" | "chunk-size" | "chunk-data" | "chunk-end" | "trailer" | "blind";

export interface Fed {
  /** header blocks that completed in these bytes (each a request now awaiting its answer) */
  heads: number;
  /** the header block in progress is past MAX_HEAD */
  tooLarge: boolean;
}

export class RequestFraming {
  #phase: Phase = "idle";
  #head = "";
  #left = 0;
  #line = "";
  #lineLength = 0;
  /** when the header block in progress began; null between requests and in a body */
  headFrom: number | null;

  /** `openedAt`: a new connection's first request is timed from when it opened, not from its first byte */
  constructor(openedAt: number | null = null) {
    this.headFrom = openedAt;
  }

  /** A request's headers are complete and its body is not (a body the server may answer before it ends). */
  get inBody(): boolean {
    return this.#phase !== "idle" && this.#phase !== "head" && this.#phase !== "blind";
  }

  /** No request in progress: the next byte begins a new one (or the connection's first). */
  get between(): boolean {
    return this.#phase === "idle";
  }

  /** Framing this tracker cannot follow (a malformed length or chunk size): the server answers it. */
  get blind(): boolean {
    return this.#phase === "blind";
  }

  feed(bytes: Uint8Array, now: number): Fed {
    const fed: Fed = { heads: 0, tooLarge: false };
    let i = 0;
    while (i < bytes.length && this.#phase !== "blind") {
      switch (this.#phase) {
        case "idle":
          this.#phase = "head";
          this.#head = "";
          this.headFrom ??= now;
          break;
        case "head": {
          // decode only up to the blank line (a body may follow in the same read)
          const from = Math.max(0, this.#head.length - 3);
          const more = LATIN1.decode(bytes.subarray(i, Math.min(bytes.length, i + MAX_HEAD + 4)));
          const text = this.#head + more;
          const end = text.indexOf("\r\n\r\n", from);
          if (end < 0) {
            if (text.length > MAX_HEAD) {
              fed.tooLarge = true;
              return fed;
            }
            this.#head = text;
            i += more.length;
            break;
          }
          if (end > MAX_HEAD) {
            fed.tooLarge = true;
            return fed;
          }
          i += end + 4 - this.#head.length;
          this.#startBody(text.slice(0, end));
          this.headFrom = null;
          fed.heads++;
          break;
        }
        case "body": {
          const take = Math.min(this.#left, bytes.length - i);
          this.#left -= take;
          i += take;
          if (this.#left === 0) this.#phase = "idle";
          break;
        }
        case "chunk-data": {
          const take = Math.min(this.#left, bytes.length - i);
          this.#left -= take;
          i += take;
          if (this.#left === 0) [this.#phase, this.#lineLength] = ["chunk-end", 0];
          break;
        }
        default:
          this.#lineByte(bytes[i++]);
      }
    }
    return fed;
  }

  #startBody(head: string) {
    let length: string | null = null, chunked = false;
    for (const line of head.split("\r\n").slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "transfer-encoding" && /(^|,)\s*chunked\s*$/i.test(value)) chunked = true;
      else if (name === "content-length") {
        if (length !== null && length !== value) return void (this.#phase = "blind");
        length = value;
      }
    }
    if (chunked) return void ([this.#phase, this.#line] = ["chunk-size", ""]);
    if (length === null) return void (this.#phase = "idle");
    if (!/^\d{1,15}$/.test(length)) return void (this.#phase = "blind");
    this.#left = Number(length);
    this.#phase = this.#left > 0 ? "body" : "idle";
  }

  /** one byte of a chunk-size line, the CRLF after a chunk's data, or a trailer line */
  #lineByte(b: number) {
    if (this.#phase === "chunk-size") {
      if (b !== 0x0a) {
        if (this.#line.length >= MAX_SIZE_LINE) this.#phase = "blind";
        else this.#line += String.fromCharCode(b);
        return;
      }
      const hex = this.#line.split(";")[0].trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) return void (this.#phase = "blind");
      this.#left = parseInt(hex, 16);
      this.#line = "";
      if (this.#left > 0) this.#phase = "chunk-data";
      else [this.#phase, this.#lineLength] = ["trailer", 0];
      return;
    }
    if (this.#phase === "chunk-end") {
      if (b === 0x0a) [this.#phase, this.#line] = ["chunk-size", ""];
      return;
    }
    // trailer: lines until an empty one
    if (b === 0x0a) {
      if (this.#lineLength === 0) this.#phase = "idle";
      this.#lineLength = 0;
    } else if (b !== 0x0d) this.#lineLength++;
  }
}
