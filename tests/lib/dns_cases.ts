import assert from "node:assert/strict";
import { reverseName } from "../../lib/dns.ts";

Deno.test("dns: reverse names for IPv4 and IPv6 (the forms verification looks up)", () => {
  assert.equal(reverseName("66.249.66.1"), "1.66.249.66.in-addr.arpa");
  assert.equal(
    reverseName("2001:db8::7"),
    "7.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
  );
});
