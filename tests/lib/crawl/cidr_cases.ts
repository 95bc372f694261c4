import assert from "node:assert/strict";
import fc from "fast-check";
import { isIp, parseCidr, parseIp, RangeSet } from "../../../lib/crawl/cidr.ts";
import { extractPrefixes } from "../../../lib/crawl/ranges/parse.ts";

Deno.test("cidr: IPv4 and IPv6 addresses parse; nonsense does not", () => {
  for (
    const ok of [
      "1.2.3.4",
      "255.255.255.255",
      "::1",
      "2001:db8::1",
      "2606:4700::6810:84e5",
      "::ffff:1.2.3.4",
      "fe80::1%eth0",
    ]
  ) {
    assert.ok(isIp(ok), ok);
  }
  for (
    const bad of [
      "",
      "1.2.3",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3.4.5",
      "2001:db8::1::2",
      "hello",
      "12345::",
      ":::",
    ]
  ) {
    assert.equal(isIp(bad), false, bad);
  }
  assert.deepEqual(parseIp("::ffff:10.0.0.1"), parseIp("10.0.0.1"));
});

Deno.test("cidr: ranges match addresses inside and only inside, v4 and v6", () => {
  const set = new RangeSet(["20.171.206.0/24", "2001:db8:10::/48", "192.0.2.7", "bad/99"]);
  assert.equal(set.skipped, 1);
  assert.ok(set.has("20.171.206.0") && set.has("20.171.206.255") && set.has("192.0.2.7"));
  assert.ok(!set.has("20.171.207.0") && !set.has("20.171.205.255") && !set.has("192.0.2.8"));
  assert.ok(set.has("2001:db8:10:ffff::1") && set.has("2001:DB8:10::"));
  assert.ok(!set.has("2001:db8:11::1"));
  assert.ok(set.has("::ffff:20.171.206.9"), "IPv4-mapped IPv6 matches the IPv4 range");
  assert.ok(!set.has("not an ip"));
});

Deno.test("cidr: a v4 address is in a /n range exactly when its first n bits agree (property)", () => {
  fc.assert(
    fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (base, probe, len) => {
      const range = parseCidr(`${base}/${len}`)!;
      const p = parseIp(probe)! as { v: 4; n: number };
      const bits = (s: string) => s.split(".").map((o) => Number(o).toString(2).padStart(8, "0")).join("");
      const expected = bits(base).slice(0, len) === bits(probe).slice(0, len);
      assert.equal(new RangeSet([`${base}/${len}`]).has(probe), expected);
      assert.equal(p.n >= range.lo && p.n <= range.hi, expected);
    }),
  );
});

Deno.test("ip lists: prefixes are read from every vendor shape", () => {
  assert.deepEqual(
    extractPrefixes(
      JSON.stringify({ prefixes: [{ ipv4Prefix: "1.2.3.0/24" }, { ipv6Prefix: "2001:db8::/32" }] }),
    ),
    [
      "1.2.3.0/24",
      "2001:db8::/32",
    ],
  );
  assert.deepEqual(
    extractPrefixes(JSON.stringify({ addresses: ["23.235.32.0/20"], ipv6_addresses: ["2a04:4e40::/32"] })),
    [
      "23.235.32.0/20",
      "2a04:4e40::/32",
    ],
  );
  const aws = {
    prefixes: [{ ip_prefix: "3.0.0.0/15", service: "AMAZON" }, {
      ip_prefix: "13.32.0.0/15",
      service: "CLOUDFRONT",
    }],
  };
  assert.deepEqual(extractPrefixes(JSON.stringify(aws), "CLOUDFRONT"), ["13.32.0.0/15"]);
  assert.deepEqual(extractPrefixes("173.245.48.0/20\n103.21.244.0/22\n"), [
    "173.245.48.0/20",
    "103.21.244.0/22",
  ]);
  assert.deepEqual(extractPrefixes("<html><p>5.45.192.0/18</p><p>version 1.0</p></html>"), ["5.45.192.0/18"]);
  assert.deepEqual(extractPrefixes("<html>maintenance</html>"), []);
});
