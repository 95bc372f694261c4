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
  const geo = await openGeo({ city: `${dir}/city.mmdb`, asn: dir });
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
