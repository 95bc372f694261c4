/** A domain the organization has proven: added, its TXT record put into the fake DNS, and verified. */
import type { Deps } from "../../lib/deps.ts";
import type { FakeDns } from "./deps.ts";
import { addDomain, txtRecordOf, verifyDomain } from "../../lib/tenancy/verified_domains.ts";

export async function verifiedDomain(deps: Deps, org: string, domain: string): Promise<void> {
  const d = await addDomain(deps.kv, deps.clock, org, domain);
  const { name, value } = txtRecordOf(d);
  (deps.dns as FakeDns).txtRecords.set(name, [value]);
  const r = await verifyDomain(deps.kv, deps.dns, deps.clock, org, d.domain);
  if (!r.verified) throw new Error(`${domain} not verified: ${r.reason}`);
}
