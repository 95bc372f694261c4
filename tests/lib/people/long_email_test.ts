/**
 * An over-long email on the sign-in and reset forms is answered like any address without an account (sign-in:
 * "wrong email or password"; reset: the same notice for every address), never a 500: the lookup key of a
 * 5,000-character address was over KV's 2 KiB key limit (found in review). Real KV file, the app's HTTP forms.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { testDeps } from "../../helpers/deps.ts";
import { AppClient } from "../../helpers/app_client.ts";
import { WRONG_CREDENTIALS } from "../../../lib/people/sign_in.ts";

Deno.test("people: a 5,000-character email gets the sign-in form's error and the reset notice, not a 500", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const deps = await testDeps({ kv });
    const anon = new AppClient(createApp(deps));
    await anon.get("/app/sign-in");
    const long = "a".repeat(5000) + "@acme.test";
    const s = await anon.post("/app/sign-in", { email: long, password: "whatever whatever" });
    assert.equal(s.status, 401, s.html.slice(0, 300));
    assert.match(s.html, new RegExp(WRONG_CREDENTIALS));
    const r = await anon.post("/app/reset", { email: long }, { csrf: null });
    assert.equal(r.status, 200, r.html.slice(0, 300));
    assert.match(r.html, /If an account exists for that address/);
    assert.deepEqual(deps.log.lines.filter((l) => l.includes('"level":"error"')), []);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
