import assert from "node:assert/strict";
import { checkConfiguredPaths, ConfigError, openConfiguredKv, readConfig } from "../../lib/config.ts";

Deno.test("config: production start needs ADMIN_TOKEN and names it", () => {
  assert.throws(() => readConfig({}), (e) => e instanceof ConfigError && e.message.includes("ADMIN_TOKEN"));
  assert.throws(() => readConfig({ ADMIN_TOKEN: "short" }), /ADMIN_TOKEN/);
});

Deno.test("config: bad values stop the start with the variable's name", () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token" };
  assert.throws(() => readConfig({ ...base, PORT: "eighty" }), /PORT/);
  assert.throws(() => readConfig({ ...base, PORT: "70000" }), /PORT/);
  assert.throws(() => readConfig({ ...base, TRUST_PROXY: "maybe" }), /TRUST_PROXY/);
  assert.throws(() => readConfig({ ...base, KV_QUEUE: "sometimes" }), /KV_QUEUE must be "on" or "off"/);
  assert.equal(readConfig({ ...base, KV_QUEUE: "off" }).kvQueue, false);
  assert.equal(readConfig(base).kvQueue, true);
  assert.equal(readConfig({ ...base, VERIFY_SWEEP_SECONDS: "2" }).verifySweepSeconds, 2);
  assert.equal(readConfig({ ...base, VERIFY_SWEEP_SECONDS: "600" }).verifySweepSeconds, 60);
  assert.throws(() => readConfig({ ...base, READ_KEY_RATE_PER_MINUTE: "0" }), /READ_KEY_RATE_PER_MINUTE/);
  assert.throws(() => readConfig({ ...base, KV_PATH: "a", KV_URL: "http://b" }), /KV_PATH or KV_URL/);
});

Deno.test("config: defaults, and dev mode runs without an admin token", () => {
  const c = readConfig({ ADMIN_TOKEN: "a-long-enough-admin-token", TRUST_PROXY: "true" });
  assert.equal(c.port, 8000);
  assert.equal(c.kvPath, "./data/kv.sqlite3");
  assert.equal(c.trustProxy, true);
  assert.equal(readConfig({}, { dev: true }).adminToken, "");
});

Deno.test("config: on Deno Deploy (DENO_DEPLOYMENT_ID set) the default KV is the platform's (no path)", async () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token", DENO_DEPLOYMENT_ID: "abc123" };
  assert.equal(readConfig(base).kvPath, "");
  assert.equal(readConfig({ ...base, KV_PATH: ":memory:" }).kvPath, ":memory:");
  assert.equal(readConfig({ ...base, KV_URL: "https://kv.example/x" }).kvPath, "https://kv.example/x");
  const asked: (string | undefined)[] = [];
  const kv = await openConfiguredKv(base, "", (path?: string) => {
    asked.push(path);
    return Deno.openKv(":memory:");
  });
  kv.close();
  assert.deepEqual(asked, [undefined]); // Deno.openKv() with no path at all
});

Deno.test("config: PLAN_LIMITS overrides plan defaults; bad JSON or fields name the variable", () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token" };
  const c = readConfig({
    ...base,
    PLAN_LIMITS: '{"starter":{"history_days":60,"allowances":{"api_requests":10}}}',
  });
  assert.equal(c.plans.starter?.history_days, 60);
  assert.throws(() => readConfig({ ...base, PLAN_LIMITS: "{nope" }), /PLAN_LIMITS must be JSON/);
  assert.throws(
    () => readConfig({ ...base, PLAN_LIMITS: '{"gold":{}}' }),
    /PLAN_LIMITS: unknown plan "gold"/,
  );
  assert.throws(
    () => readConfig({ ...base, PLAN_LIMITS: '{"free":{"history_days":-1}}' }),
    /PLAN_LIMITS\.free\.history_days/,
  );
});

Deno.test("config: a geo path set but missing names its variable; unset or off is fine", async () => {
  await assert.rejects(
    checkConfiguredPaths({ GEO_CITY_MMDB: "/nonexistent/city.mmdb" }),
    (e) => e instanceof ConfigError && e.message.startsWith("GEO_CITY_MMDB:"),
  );
  await assert.rejects(checkConfiguredPaths({ GEO_ASN_CSV: "/nonexistent/asn" }), /GEO_ASN_CSV: nothing at/);
  await checkConfiguredPaths({ GEO_CITY_MMDB: "off", GEO_ASN_CSV: "" });
  await checkConfiguredPaths({ GEO_CITY_MMDB: Deno.makeTempDirSync() });
});

Deno.test("config: a KV path that cannot be opened names KV_PATH (or KV_URL)", async () => {
  const blocker = Deno.makeTempFileSync(); // a file where a folder would have to be
  await assert.rejects(
    openConfiguredKv({}, `${blocker}/kv.sqlite3`, Deno.openKv),
    (e) => e instanceof ConfigError && e.message.startsWith("KV_PATH: cannot open"),
  );
  await assert.rejects(
    openConfiguredKv({ KV_URL: "x" }, `${blocker}/kv.sqlite3`, Deno.openKv),
    /KV_URL: cannot open/,
  );
  const dir = Deno.makeTempDirSync();
  const kv = await openConfiguredKv({}, `${dir}/new/folder/kv.sqlite3`, Deno.openKv); // folders are made
  kv.close();
});

Deno.test("config: PUBLIC_URL is an origin, SMTP_URL an smtp(s) address; each names itself when wrong", () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token" };
  const c = readConfig({
    ...base,
    PUBLIC_URL: "https://behavior.example.com/",
    SMTP_URL: "smtp://u:p@mail.test:587",
  });
  assert.equal(c.publicUrl, "https://behavior.example.com");
  assert.equal(c.smtpUrl, "smtp://u:p@mail.test:587");
  assert.equal(readConfig(base).publicUrl, null);
  assert.equal(readConfig(base).smtpUrl, null);
  assert.throws(() => readConfig({ ...base, PUBLIC_URL: "behavior.example.com" }), /PUBLIC_URL/);
  assert.throws(() => readConfig({ ...base, PUBLIC_URL: "https://x.test/app" }), /PUBLIC_URL/);
  assert.throws(() => readConfig({ ...base, SMTP_URL: "mail.test:25" }), /SMTP_URL/);
});

Deno.test("config: DAY_PART_ROWS sets a closed day's part size, never below the open days' 50,000", () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token" };
  assert.equal(readConfig(base).dayPartRows, 400_000);
  assert.equal(readConfig({ ...base, DAY_PART_ROWS: "150000" }).dayPartRows, 150_000);
  assert.equal(readConfig({ ...base, DAY_PART_ROWS: "1000" }).dayPartRows, 50_000);
  assert.throws(() => readConfig({ ...base, DAY_PART_ROWS: "many" }), /DAY_PART_ROWS/);
});

Deno.test("config: PASSWORD_COST may only raise production's password cost; PASSWORD_TEST_COST lowers it off Deploy", () => {
  const base = { ADMIN_TOKEN: "a-long-enough-admin-token" };
  assert.equal(readConfig(base).passwordCost, 15);
  assert.equal(readConfig({}, { dev: true }).passwordCost, 15);
  assert.equal(readConfig({ ...base, PASSWORD_COST: "16" }).passwordCost, 16);
  assert.throws(() => readConfig({ ...base, PASSWORD_COST: "14" }), /PASSWORD_COST must be an integer >= 15/);
  assert.throws(() => readConfig({ ...base, PASSWORD_COST: "21" }), /PASSWORD_COST must be at most 20/);
  assert.equal(readConfig({ ...base, PASSWORD_TEST_COST: "10" }).passwordCost, 10);
  assert.throws(
    () => readConfig({ ...base, PASSWORD_TEST_COST: "9" }),
    /PASSWORD_TEST_COST must be an integer >= 10/,
  );
  assert.throws(
    () => readConfig({ ...base, PASSWORD_TEST_COST: "10", PASSWORD_COST: "15" }),
    /PASSWORD_COST or PASSWORD_TEST_COST/,
  );
  assert.throws(
    () => readConfig({ ...base, PASSWORD_TEST_COST: "10", DENO_DEPLOYMENT_ID: "abc123" }),
    /PASSWORD_TEST_COST is for tests/,
  );
});
