import assert from "node:assert/strict";
import { clientAddress } from "../../../lib/enrich/client_address.ts";
import { canonicalIp } from "../../../lib/ip.ts";

Deno.test("client address: canonical forms; ports, brackets, zones and mapped IPv4 are normalised; junk is null", () => {
  assert.equal(canonicalIp("81.2.69.160"), "81.2.69.160");
  assert.equal(canonicalIp(" 81.2.69.160:1234 "), "81.2.69.160");
  assert.equal(canonicalIp("::ffff:66.249.66.1"), "66.249.66.1");
  assert.equal(canonicalIp("[2001:DB8:0:0:0:0:0:7]:443"), "2001:db8::7");
  assert.equal(canonicalIp("fe80::1%eth0"), "fe80::1");
  assert.equal(canonicalIp("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1");
  assert.equal(canonicalIp("::"), null);
  assert.equal(canonicalIp("0.0.0.0"), null);
  assert.equal(canonicalIp("not-an-ip"), null);
  assert.equal(canonicalIp("256.1.1.1"), null);
  assert.equal(canonicalIp(null), null);
});

Deno.test("client address: X-Forwarded-For is used only behind a trusted proxy, and only its last hop", () => {
  const req = new Request("http://svc/", { headers: { "x-forwarded-for": "6.6.6.6, 81.2.69.160" } });
  const info = { remoteAddr: { hostname: "10.0.0.2" } };
  assert.equal(clientAddress(req, info, false), "10.0.0.2");
  assert.equal(clientAddress(req, info, true), "81.2.69.160");
  const junk = new Request("http://svc/", { headers: { "x-forwarded-for": "garbage" } });
  assert.equal(clientAddress(junk, info, true), "10.0.0.2");
  assert.equal(clientAddress(new Request("http://svc/"), undefined, false), null);
});
