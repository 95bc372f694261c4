/**
 * The tests of enrichment (lib/enrich: geo, ASN, attribution, client address, user agents), run as one test
 * module: each `*_cases.ts` file below registers its own tests (names and assertions as they were in its
 * `*_test.ts`), and one module costs one worker and one load of the app's modules instead of one per file.
 */
import "./asn_cases.ts";
import "./attribution_cases.ts";
import "./client_address_cases.ts";
import "./geo_data_cases.ts";
import "./geo_cases.ts";
import "./mmdb_cases.ts";
import "./place_index_cases.ts";
import "./ua_cases.ts";
