import assert from "node:assert/strict";
import {
  hashPassword,
  MIN_PASSWORD_COST,
  needsRehash,
  PASSWORD_COST,
  PASSWORD_PARAMS,
  passwordProblem,
  verifyPassword,
} from "../../../lib/people/passwords.ts";
import { defaultConfig } from "../../../lib/config.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { User } from "../../../lib/people/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { peopleWorld } from "../../helpers/people.ts";

/** These tests keep production's cost (N = 2^15); other tests hash at MIN_PASSWORD_COST (tests/helpers/deps.ts). */

Deno.test("passwords: scrypt hash with its parameters and salt; verifies the right password only", async () => {
  const a = await hashPassword("correct horse battery");
  const b = await hashPassword("correct horse battery");
  const { N, r, p } = PASSWORD_PARAMS;
  assert.equal(N, 2 ** 15);
  assert.equal(PASSWORD_COST, 15);
  assert.equal(defaultConfig.passwordCost, 15, "production's default");
  assert.match(a, new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
  assert.notEqual(a, b, "a fresh salt each time");
  assert.ok(!a.includes("correct horse"));
  assert.equal(await verifyPassword("correct horse battery", a), true);
  assert.equal(await verifyPassword("correct horse batterY", a), false);
  assert.equal(await verifyPassword("", a), false);
  assert.equal(needsRehash(a), false);
});

Deno.test("passwords: a malformed stored hash never matches; weaker parameters ask for a rehash", async () => {
  for (const bad of ["", "plain", "scrypt$1$2$3", "bcrypt$x$y$z$a$b", "scrypt$x$8$1$AAAA$BBBB"]) {
    assert.equal(await verifyPassword("anything", bad), false, bad);
  }
  assert.equal(needsRehash("scrypt$16384$8$1$AAAA$BBBB"), true);
});

Deno.test("passwords: length rules name the problem", () => {
  assert.match(passwordProblem("short")!, /at least 10/);
  assert.match(passwordProblem("x".repeat(201))!, /at most 200/);
  assert.equal(passwordProblem("a long enough passphrase"), null);
});

Deno.test("passwords: a lower cost is stored in the hash and verifies; below the least or above the most is refused", async () => {
  const low = await hashPassword("correct horse battery", MIN_PASSWORD_COST);
  assert.match(low, /^scrypt\$1024\$8\$3\$/);
  assert.equal(await verifyPassword("correct horse battery", low), true);
  assert.equal(await verifyPassword("correct horse batterY", low), false);
  await assert.rejects(() => hashPassword("correct horse battery", MIN_PASSWORD_COST - 1), RangeError);
  await assert.rejects(() => hashPassword("correct horse battery", 21), RangeError);
  await assert.rejects(() => hashPassword("correct horse battery", 12.5), RangeError);
  // a hash below production's cost is upgraded at sign-in; one above a lowered cost is never lowered
  assert.equal(needsRehash(low), true);
  assert.equal(needsRehash(low, MIN_PASSWORD_COST), false);
  assert.equal(needsRehash(await hashPassword("correct horse battery"), MIN_PASSWORD_COST), false);
});

/** Joins through an invitation over HTTP with `cost` configured; answers the stored hash. */
async function joinedHash(cost: number | undefined) {
  const w = await peopleWorld();
  try {
    w.deps.config.passwordCost = cost ?? defaultConfig.passwordCost;
    await w.join("ann@acme.test", "member");
    const id = (await w.deps.kv.get<string>(keys.userByEmail("ann@acme.test"))).value!;
    return (await w.deps.kv.get<User>(keys.user(id))).value!.password_hash;
  } finally {
    w.close();
  }
}

Deno.test("passwords: the app hashes at the configured cost, production's unless set", async () => {
  assert.match(await joinedHash(undefined), /^scrypt\$32768\$8\$3\$/);
  assert.match(await joinedHash(MIN_PASSWORD_COST), /^scrypt\$1024\$8\$3\$/);
  const deps = await testDeps();
  deps.kv.close();
  assert.equal(deps.config.passwordCost, MIN_PASSWORD_COST, "tests' deps hash cheaply");
});
