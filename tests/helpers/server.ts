/** Starts the real service (main.ts) as a child process on a random port with a temporary KV file. */
const ROOT = new URL("../../", import.meta.url).pathname;

export interface RunningServer {
  url: string;
  adminToken: string;
  kvPath: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Ends the service `current()` names when the test module unloads (a filter that leaves some test out: the
 * file's last test, which would stop it, never runs): the process killed, its KV folder removed.
 */
export function endOnUnload(current: () => RunningServer | undefined): void {
  globalThis.addEventListener("unload", () => {
    const running = current();
    if (!running) return;
    try {
      Deno.kill(running.pid, "SIGTERM");
    } catch { /* already gone */ }
    try {
      Deno.removeSync(new URL(".", `file://${running.kvPath}`), { recursive: true });
    } catch { /* already removed */ }
  });
}

/** What a Deno Deploy isolate may do: no write, no subprocess, no FFI. */
export const DEPLOY_PERMISSIONS = ["--allow-net", "--allow-env", "--allow-read", "--allow-sys"];

/**
 * With `kvPath`, the server opens that file and leaves it in place on stop (to test a restart).
 * `permissions` replaces `-A` (e.g. DEPLOY_PERMISSIONS).
 */
export async function startServer(
  opts: { env?: Record<string, string>; kvPath?: string; permissions?: string[] } = {},
): Promise<RunningServer> {
  const dir = opts.kvPath ? null : await Deno.makeTempDir({ prefix: "svc-e2e-" });
  const kvPath = opts.kvPath ?? `${dir}/kv.sqlite3`;
  const adminToken = opts.env?.ADMIN_TOKEN ?? `e2e-admin-${crypto.randomUUID()}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...(opts.permissions ?? ["-A"]), "--unstable-kv", "--unstable-cron", `${ROOT}main.ts`],
    cwd: ROOT,
    // Geo databases take seconds and ~180 MB to load: off unless a test asks for them.
    env: {
      PORT: "0",
      KV_PATH: kvPath,
      ADMIN_TOKEN: adminToken,
      GEO_CITY_MMDB: "off",
      GEO_ASN_CSV: "off",
      PASSWORD_TEST_COST: "10", // the least: production's costs ~0.3 s of CPU a hash (README)
      ...opts.env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let url = "";
  const deadline = Date.now() + 60_000;
  while (!url) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${buffered}`);
    const { value, done } = await lines.read();
    if (done) {
      const err = await new Response(child.stderr).text();
      throw new Error(`server exited before listening: ${buffered}\n${err}`);
    }
    buffered += value;
    const m = buffered.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    if (m) url = m[1];
  }
  // Keep draining output so the child never blocks on a full pipe.
  const drainOut = (async () => {
    while (!(await lines.read()).done) { /* discard */ }
  })();
  const drainErr = child.stderr.pipeTo(new WritableStream());

  return {
    url,
    adminToken,
    kvPath,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await Promise.allSettled([drainOut, drainErr]);
      if (dir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * `deno task dev`'s start (main.ts --dev) on a temporary KV file: resolves with what it printed up to the
 * admin API line (the demo's keys, sign-in and calls); `stop()` ends it and removes the file.
 */
export interface DevServer {
  out: string;
  stop(): Promise<void>;
  /** Ends it at once, for an unload handler that cannot wait: the process killed, its file removed. */
  kill(): void;
}

export async function startDevServer(): Promise<DevServer> {
  const dir = await Deno.makeTempDir({ prefix: "svc-dev-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "--dev"],
    cwd: ROOT,
    env: {
      PORT: "0",
      KV_PATH: `${dir}/kv.sqlite3`,
      GEO_CITY_MMDB: "off",
      GEO_ASN_CSV: "off",
      PASSWORD_TEST_COST: "10",
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  };
  const kill = () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already removed */ }
  };
  let out = "";
  try {
    while (!out.includes("Admin API:")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`dev start ended early:\n${out}`);
      out += value;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { out, stop, kill };
}
