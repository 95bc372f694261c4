import assert from "node:assert/strict";
import { formatIpv4, parseIp, parseIpv4 } from "../../lib/ip.ts";

Deno.test("ip: IPv4 becomes one unsigned number and formats back", () => {
  assert.deepEqual(parseIp("8.8.8.8"), { v: 4, n: 0x08080808 });
  assert.deepEqual(parseIp("255.255.255.255"), { v: 4, n: 0xffffffff });
  assert.equal(formatIpv4(parseIpv4("81.2.69.142")!), "81.2.69.142");
});

Deno.test("ip: IPv6 becomes four words, compressed or full, with brackets or a zone", () => {
  const words = [0x20010db8, 0, 0, 1];
  assert.deepEqual(parseIp("2001:db8::1"), { v: 6, words });
  assert.deepEqual(parseIp("2001:0db8:0000:0000:0000:0000:0000:0001"), { v: 6, words });
  assert.deepEqual(parseIp("[2001:db8::1]"), { v: 6, words });
  assert.deepEqual(parseIp("fe80::1%eth0"), { v: 6, words: [0xfe800000, 0, 0, 1] });
  assert.deepEqual(parseIp("::"), { v: 6, words: [0, 0, 0, 0] });
  assert.deepEqual(parseIp("::1"), { v: 6, words: [0, 0, 0, 1] });
});

Deno.test("ip: IPv4-mapped IPv6 counts as IPv4", () => {
  assert.deepEqual(parseIp("::ffff:1.1.1.1"), { v: 4, n: 0x01010101 });
  assert.deepEqual(parseIp("::ffff:0101:0101"), { v: 4, n: 0x01010101 });
});

Deno.test("ip: malformed addresses are refused", () => {
  for (
    const bad of [
      "",
      "1.2.3",
      "1.2.3.256",
      "1.2.3.4.5",
      "01234.1.1.1",
      "a.b.c.d",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7::8",
      "g::1",
      "nonsense",
    ]
  ) {
    assert.equal(parseIp(bad), null, bad);
  }
});

Deno.test("ip: one parser for every reader: octets with a leading zero are refused, IPv6 reads the same as words and as one number", async () => {
  const { parseCidr, RangeSet } = await import("../../lib/crawl/cidr.ts");
  for (const bad of ["010.1.1.1", "1.2.3.04", "::ffff:01.2.3.4", "x".repeat(100)]) {
    assert.equal(parseIp(bad), null, bad);
    assert.equal(parseCidr(bad), null, bad);
  }
  assert.deepEqual(parseCidr("2001:db8::/32"), {
    v: 6,
    lo: 0x20010db8n << 96n,
    hi: (0x20010db8n << 96n) + (1n << 96n) - 1n,
  });
  const set = new RangeSet(["2001:db8::/32"]);
  assert.ok(set.has("2001:db8:ffff::1") && set.has(parseIp("2001:db8::1")!));
  assert.ok(!set.has("2001:db9::1"));
});
