/**
 * The production databases from node_modules (installed by deno.json's import map on first run).
 * Addresses chosen for stable, well-known owners.
 */
import assert from "node:assert/strict";
import { openGeo } from "../../../lib/enrich/geo.ts";

Deno.test("geo: the default DB-IP city MMDB and ASN table answer IPv4, IPv6 and mapped IPv4", async () => {
  const geo = await openGeo({});
  assert.deepEqual(geo.warnings, []);
  const google4 = geo.lookup("8.8.8.8");
  assert.equal(google4.country, "US");
  assert.equal(google4.asn, 15169);
  assert.match(google4.as_org ?? "", /Google/);
  assert.equal(typeof google4.city, "string");

  const cloudflare = geo.lookup("::ffff:1.1.1.1");
  assert.equal(cloudflare.asn, 13335);
  assert.match(cloudflare.as_org ?? "", /Cloudflare/);
  assert.equal(cloudflare.country, "AU");

  const google6 = geo.lookup("2001:4860:4860::8888");
  assert.equal(google6.asn, 15169);
  assert.match(google6.country ?? "", /^[A-Z]{2}$/);

  assert.deepEqual(geo.lookup("192.168.1.10"), { country: null, city: null, asn: null, as_org: null });
  assert.deepEqual(geo.lookup("::1"), { country: null, city: null, asn: null, as_org: null });
});
