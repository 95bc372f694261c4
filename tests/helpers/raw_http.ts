/**
 * Raw HTTP/1.1 over a real loopback socket: for what a Request object cannot carry (a Host that is not an
 * authority, broken chunked framing). Reads until the server closes or `maxMs` passes.
 */
export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

export async function rawRequest(port: number, text: string, maxMs = 5_000): Promise<RawAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(text));
  const chunks: Uint8Array[] = [];
  const timer = setTimeout(() => conn.close(), maxMs);
  try {
    const buf = new Uint8Array(16 * 1024);
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
  const all = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  const split = all.indexOf("\r\n\r\n");
  const head = split < 0 ? all : all.slice(0, split);
  const status = Number(head.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0);
  return { status, headers: head, body: split < 0 ? "" : all.slice(split + 4) };
}

/** A request in wire form; Connection: close so the answer ends with the socket. */
export function wire(method: string, path: string, headers: Record<string, string>, body = ""): string {
  const lines = [`${method} ${path} HTTP/1.1`, "Connection: close"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body && !Object.keys(headers).some((k) => k.toLowerCase() === "transfer-encoding")) {
    lines.push(`Content-Length: ${new TextEncoder().encode(body).length}`);
  }
  return lines.join("\r\n") + "\r\n\r\n" + body;
}
