/**
 * Small MaxMind DB files written here (24-bit records, no pointers), read through the real openGeo path:
 * tree walk, flat and nested records, merging, IPv6 ranges that start inside a /64, built ahead and read.
 */
import assert from "node:assert/strict";
import { openGeo } from "../../../lib/enrich/geo.ts";
import { buildGeoIndex } from "../../../lib/enrich/geo_build.ts";

type Value = string | number | { [k: string]: Value };

function encode(v: Value, out: number[]) {
  const head = (type: number, size: number) => {
    if (size >= 29) throw new Error("test writer: sizes under 29 only");
    if (type <= 7) out.push((type << 5) | size);
    else out.push(size, type - 7);
  };
  if (typeof v === "string") {
    const bytes = new TextEncoder().encode(v);
    head(2, bytes.length), out.push(...bytes);
  } else if (typeof v === "number") {
    const bytes = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    head(6, 4), out.push(...bytes);
  } else {
    head(7, Object.keys(v).length);
    for (const [k, x] of Object.entries(v)) encode(k, out), encode(x, out);
  }
}

/** An MMDB with the given networks ("a.b.c.d/len" or IPv6 words + len) mapped to records. */
function writeMmdb(bits: 32 | 128, networks: { prefix: number[]; len: number; record: Value }[]): Uint8Array {
  const nodes: number[][] = [[-1, -1]]; // child: >= 0 node, -1 empty, <= -2 data offset -(off + 2)
  const data: number[] = [];
  for (const { prefix, len, record } of networks) {
    let node = 0;
    for (let d = 0; d < len; d++) {
      const bit = (prefix[d >> 5] >>> (31 - (d & 31))) & 1;
      if (d === len - 1) {
        nodes[node][bit] = -(data.length + 2);
        encode(record, data);
      } else {
        if (nodes[node][bit] < 0) nodes[node][bit] = nodes.push([-1, -1]) - 1;
        node = nodes[node][bit];
      }
    }
  }
  const n = nodes.length, out: number[] = [];
  const value = (c: number) => (c >= 0 ? c : c === -1 ? n : n + 16 + (-c - 2));
  for (const [l, r] of nodes) {
    for (const v of [value(l), value(r)]) out.push((v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  }
  out.push(...new Array(16).fill(0), ...data, 0xab, 0xcd, 0xef, ...new TextEncoder().encode("MaxMind.com"));
  encode({ node_count: n, record_size: 24, ip_version: bits === 32 ? 4 : 6 }, out);
  return Uint8Array.from(out);
}

const v4 = (s: string) => [s.split(".").reduce((n, p) => n * 256 + Number(p), 0)];

Deno.test("mmdb: flat and nested records, merged neighbours and IPv6 ranges inside a /64 answer like the tree", async () => {
  const dir = await Deno.makeTempDir();
  const brisbane = { country_code: "AU", city: "Brisbane", state1: "Queensland" };
  await Deno.writeFile(
    `${dir}/test-ipv4.mmdb`,
    writeMmdb(32, [
      { prefix: v4("1.0.0.0"), len: 24, record: brisbane },
      { prefix: v4("1.0.1.0"), len: 24, record: { ...brisbane, postcode: "4000" } }, // same place, other record
      { prefix: v4("8.8.8.0"), len: 24, record: { country_code: "us", city: "Mountain View" } },
      {
        prefix: v4("9.9.9.0"),
        len: 24,
        record: { country: { iso_code: "CH" }, city: { names: { en: "Zürich" } } },
      },
    ]),
  );
  await Deno.writeFile(
    `${dir}/test-ipv6.mmdb`,
    writeMmdb(128, [
      { prefix: [0x20010db8, 0, 0, 0], len: 64, record: { country_code: "DE", city: "Berlin" } },
      { prefix: [0x20010db8, 1, 0x80000000, 0], len: 65, record: { country_code: "FR", city: "Paris" } },
      { prefix: [0x20010db8, 1, 0, 0], len: 65, record: { country_code: "DE", city: "Berlin" } },
    ]),
  );
  const index = `${dir}/index`;
  for (const round of ["built", "rebuilt (kept)"]) {
    await buildGeoIndex({ city: dir, asn: null, index });
    const geo = await openGeo({ city: dir, asn: null, index });
    assert.equal(geo.warnings.length, 1, geo.warnings.join("; ")); // only: ASN turned off
    const place = (ip: string) => {
      const { country, city } = geo.lookup(ip);
      return `${country}/${city}`;
    };
    assert.equal(place("1.0.0.1"), "AU/Brisbane", round);
    assert.equal(place("1.0.1.255"), "AU/Brisbane", round);
    assert.equal(place("1.0.2.0"), "null/null", round);
    assert.equal(place("8.8.8.8"), "US/Mountain View", round);
    assert.equal(place("9.9.9.9"), "CH/Zürich", round);
    assert.equal(place("0.0.0.1"), "null/null", round);
    assert.equal(place("2001:db8::1"), "DE/Berlin", round);
    assert.equal(place("2001:db8:0:1::1"), "DE/Berlin", round);
    assert.equal(place("2001:db8:0:1:8000::1"), "FR/Paris", round);
    assert.equal(place("2001:db8:0:1:ffff:ffff:ffff:ffff"), "FR/Paris", round);
    assert.equal(place("2001:db8:0:2::"), "null/null", round);
    assert.equal(place("2001:db8:1::"), "null/null", round);
    assert.equal(place("2001:db9::"), "null/null", round);
  }
  await Deno.remove(dir, { recursive: true });
});
