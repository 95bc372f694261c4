/**
 * A throwaway certificate authority and a certificate for 127.0.0.1, made with openssl for one test run: the
 * test serves a client metadata document over https on loopback, and the service it starts trusts the
 * authority through DENO_CERT. Nothing here is used outside tests.
 */
export interface LoopbackTls {
  dir: string;
  /** The authority's certificate (PEM file path): give it to the service as DENO_CERT. */
  caFile: string;
  cert: string;
  key: string;
  remove(): Promise<void>;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

export async function makeLoopbackTls(): Promise<LoopbackTls> {
  const dir = await Deno.makeTempDir({ prefix: "svc-tls-" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await openssl([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca-key.pem",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
  ], dir);
  await openssl(["req", ...ec, "-keyout", "key.pem", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1"], dir);
  await Deno.writeTextFile(
    `${dir}/leaf.ext`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl([
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca-key.pem",
    "-CAcreateserial",
    "-out",
    "cert.pem",
    "-days",
    "1",
    "-extfile",
    "leaf.ext",
  ], dir);
  return {
    dir,
    caFile: `${dir}/ca.pem`,
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
    remove: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** Serves one JSON document over https on 127.0.0.1; its URL is the document's own client_id. */
export function serveDocument(tls: LoopbackTls, doc: (url: string) => unknown) {
  let url = "";
  let fetched = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    () => {
      fetched++;
      return Response.json(doc(url), { headers: { "cache-control": "max-age=300" } });
    },
  );
  url = `https://127.0.0.1:${server.addr.port}/oauth/client-metadata.json`;
  return { url, fetched: () => fetched, stop: () => server.shutdown() };
}

/** A loopback redirect target: records each callback's query and answers with a short page. */
export function serveCallback() {
  const waiting: ((q: URLSearchParams) => void)[] = [];
  const received: URLSearchParams[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const u = new URL(req.url);
    if (u.pathname !== "/callback") return new Response("not here", { status: 404 });
    const w = waiting.shift();
    if (w) w(u.searchParams);
    else received.push(u.searchParams);
    return new Response("<!doctype html><title>Done</title><p>Signed in; you can close this window.</p>", {
      headers: { "content-type": "text/html" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/callback`,
    /** The next callback's query parameters. */
    next: (): Promise<URLSearchParams> =>
      received.length ? Promise.resolve(received.shift()!) : new Promise((r) => waiting.push(r)),
    stop: () => server.shutdown(),
  };
}
