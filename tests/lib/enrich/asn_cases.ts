import assert from "node:assert/strict";
import fc from "fast-check";
import { buildAsnTable } from "../../../lib/enrich/asn.ts";
import { parseIp } from "../../../lib/ip.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const look = (table: ReturnType<typeof buildAsnTable>, ip: string) => table.lookup(parseIp(ip)!);

Deno.test("asn: numeric IPv4 rows answer inside their inclusive range and nothing in the gaps", () => {
  const table = buildAsnTable([
    bytes('16777216,16777471,13335,"Cloudflare, Inc."\n16778240,16779263,38803,Gtelecom Pty Ltd\n'),
  ]);
  assert.deepEqual(look(table, "1.0.0.0"), { asn: 13335, org: "Cloudflare, Inc." });
  assert.deepEqual(look(table, "1.0.0.255"), { asn: 13335, org: "Cloudflare, Inc." });
  assert.equal(look(table, "1.0.1.0"), null);
  assert.deepEqual(look(table, "1.0.7.255"), { asn: 38803, org: "Gtelecom Pty Ltd" });
  assert.equal(look(table, "1.0.8.0"), null);
  assert.equal(look(table, "0.255.255.255"), null);
});

Deno.test("asn: numeric IPv6 rows (128-bit decimals) and address rows give the same answers", () => {
  const num = buildAsnTable([bytes(
    "42540528726795050063891204319802818560,42540528727329395276160870415022948351,2500,WIDE Project\r\n",
  )]);
  const text = buildAsnTable([bytes("2001:200::,2001:200:1b9:ffff:ffff:ffff:ffff:ffff,2500,WIDE Project\n")]);
  for (const table of [num, text]) {
    assert.deepEqual(look(table, "2001:200::1"), { asn: 2500, org: "WIDE Project" });
    assert.deepEqual(look(table, "2001:200:1b9:ffff:ffff:ffff:ffff:ffff"), {
      asn: 2500,
      org: "WIDE Project",
    });
    assert.equal(look(table, "2001:200:1ba::"), null);
    assert.equal(look(table, "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"), null);
    assert.equal(look(table, "1.2.3.4"), null);
  }
  assert.deepEqual(num.size, { v4: 0, v6: 1 });
});

Deno.test("asn: quoted names keep commas and doubled quotes; an empty name is null; bad rows are skipped", () => {
  const table = buildAsnTable([bytes(
    '1.0.0.0,1.0.0.255,1,"A ""B"", C"\n2.0.0.0,2.0.0.255,2,\nnot,a,row\n\n3.0.0.0,3.0.0.255,x,Bad\n',
  )]);
  assert.deepEqual(look(table, "1.0.0.7"), { asn: 1, org: 'A "B", C' });
  assert.deepEqual(look(table, "2.0.0.7"), { asn: 2, org: null });
  assert.equal(look(table, "3.0.0.7"), null);
  assert.deepEqual(table.size, { v4: 2, v6: 0 });
});

Deno.test("asn: lookup matches a linear scan over random disjoint ranges, in any file order", () => {
  const ranges = fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 2, maxLength: 60 })
    .map((cuts) => {
      cuts.sort((a, b) => a - b);
      const out: { start: number; end: number; asn: number }[] = [];
      for (let i = 0; i + 1 < cuts.length; i += 2) out.push({ start: cuts[i], end: cuts[i + 1], asn: i + 1 });
      return out;
    });
  fc.assert(
    fc.property(
      ranges,
      fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 40 }),
      fc.boolean(),
      (rs, probes, reverse) => {
        const rows = rs.map((r) => `${r.start},${r.end},${r.asn},AS${r.asn}`);
        if (reverse) rows.reverse();
        const table = buildAsnTable([bytes(rows.join("\n"))]);
        for (const p of [...probes, ...rs.flatMap((r) => [r.start, r.end, r.end + 1])]) {
          if (p > 0xffffffff) continue;
          const want = rs.find((r) => r.start <= p && p <= r.end);
          const got = table.lookup({ v: 4, n: p });
          assert.deepEqual(got, want ? { asn: want.asn, org: `AS${want.asn}` } : null);
        }
      },
    ),
  );
});
