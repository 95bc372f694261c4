import assert from "node:assert/strict";
import {
  hashPassword,
  needsRehash,
  PASSWORD_PARAMS,
  passwordProblem,
  verifyPassword,
} from "../../../lib/people/passwords.ts";

Deno.test("passwords: scrypt hash with its parameters and salt; verifies the right password only", async () => {
  const a = await hashPassword("correct horse battery");
  const b = await hashPassword("correct horse battery");
  const { N, r, p } = PASSWORD_PARAMS;
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
