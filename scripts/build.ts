/**
 * `deno task build`: what a start only reads, made ahead. The geo indexes (lib/enrich/geo_build.ts)
 * in build/geo/, from the databases GEO_CITY_MMDB and GEO_ASN_CSV name (as the server reads them: unset,
 * the npm packages; "off", none); files already built from the same sources are kept, so a rerun is quick.
 * And the MCP Apps views (views/build.ts): one HTML document per tool in build/views/.
 */
import { buildGeoIndex } from "../lib/enrich/geo_build.ts";
import { buildViews } from "../views/build.ts";

const setting = (v: string | undefined) => (v === "off" ? null : v || undefined);

if (import.meta.main) {
  const started = performance.now();
  const report = await buildGeoIndex({
    city: setting(Deno.env.get("GEO_CITY_MMDB")),
    asn: setting(Deno.env.get("GEO_ASN_CSV")),
  });
  for (const w of report.warnings) console.warn(w);
  for (const f of report.written) {
    console.log(`built ${f} (${(Deno.statSync(f).size / 1048576).toFixed(1)} MB)`);
  }
  if (report.kept.length) console.log(`up to date: ${report.kept.join(", ")}`);
  console.log(`geo index ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const views = await buildViews();
  const largest = Math.max(...views.map((v) => v.bytes));
  console.log(`built ${views.length} views in build/views/ (largest ${(largest / 1024).toFixed(1)} KB)`);
}
