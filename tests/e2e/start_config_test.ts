/** The real entry point refuses bad configuration with one line naming the variable, exit code 2. */
import assert from "node:assert/strict";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

const pick = (...names: string[]) =>
  Object.fromEntries(names.flatMap((n) => Deno.env.get(n) !== undefined ? [[n, Deno.env.get(n)!]] : []));

async function start(env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--unstable-cron", MAIN],
    // only what Deno itself needs is passed on: no stray service variable of the test run may leak in
    env: {
      ...pick("HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"),
      PORT: "0",
      GEO_CITY_MMDB: "off",
      GEO_ASN_CSV: "off",
      ...env,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr).trim() };
}

Deno.test("start: refused without ADMIN_TOKEN, with an unopenable KV_PATH or a missing geo file; one line, no stack", async () => {
  const token = "start-test-admin-token-0123";
  const blocker = Deno.makeTempFileSync();
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /^configuration error: ADMIN_TOKEN is required/],
    [{ ADMIN_TOKEN: token, KV_PATH: `${blocker}/kv.sqlite3` }, /^configuration error: KV_PATH: cannot open/],
    [{ ADMIN_TOKEN: token, GEO_CITY_MMDB: "/nonexistent/city.mmdb" }, /^configuration error: GEO_CITY_MMDB:/],
  ];
  for (const [env, message] of cases) {
    const r = await start(env);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.split("\n").length, 1, r.stderr);
  }
});

Deno.test("start: a port another process listens on is refused with one line naming PORT", async () => {
  const taken = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    const kv = await Deno.makeTempDir();
    const r = await start({
      ADMIN_TOKEN: "start-test-admin-token-0123",
      KV_PATH: `${kv}/kv.sqlite3`,
      PORT: String(port),
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^configuration error: PORT ${port}: another process listens on it`));
    assert.equal(r.stderr.split("\n").length, 1, r.stderr);
    await Deno.remove(kv, { recursive: true });
  } finally {
    taken.close();
  }
});
