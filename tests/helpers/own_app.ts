/** The own app review tests start from, on a site of tests/helpers/site.ts. */
import { setListing } from "../../lib/feedback/store.ts";
import type { Site } from "./site.ts";
import { verifiedDomain } from "./verified_domain.ts";

/**
 * Verifies the site's domain (acme.test) and adds its own Google Play app "Acme" (com.acme.app), whose store
 * listing names the developer Acme and www.acme.test: an own app, so its reviews may be read one by one.
 */
export async function acmeOwnApp(s: Site, fetchedAt: number): Promise<{ id: string }> {
  await verifiedDomain(s.deps, s.t.org, s.t.domain);
  const own = await s.admin("POST", "/apps", {
    store: "google_play",
    store_id: "com.acme.app",
    name: "Acme",
  });
  await setListing(s.kv, s.t.org, own.id, {
    name: "Acme",
    developer: "Acme",
    developer_website: "https://www.acme.test",
    version: "2.1",
    fetched_at: fetchedAt,
  });
  return own;
}
