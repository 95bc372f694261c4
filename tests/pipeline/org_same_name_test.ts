/**
 * An assistant connected to two organizations of the same name (any letter case) must say the name is
 * ambiguous and list the ids, not read the first one silently (found in review; the touchpoint case was fixed
 * in b005865). An id still picks one; a name that fits one organization still picks it.
 */
import assert from "node:assert/strict";
import { pickOrganization } from "../../pipeline/person.ts";
import { HttpError } from "../../lib/errors.ts";

type Org = Parameters<typeof pickOrganization>[0][number];
const orgs = [
  { id: "org_A", name: "Acme", active: true },
  { id: "org_B", name: "ACME", active: true },
  { id: "org_C", name: "Beta", active: true },
] as unknown as Org[];

Deno.test("pickOrganization: a name fitting two organizations is a 422 naming both ids", () => {
  assert.throws(() => pickOrganization(orgs, "acme", false), (err: unknown) => {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 422);
    assert.match(err.message, /"acme" fits 2 organizations/);
    assert.match(err.message, /"Acme" \(id org_A\)/);
    assert.match(err.message, /"ACME" \(id org_B\)/);
    return true;
  });
  assert.equal(pickOrganization(orgs, "org_B", false).id, "org_B");
  assert.equal(pickOrganization(orgs, " beta ", false).id, "org_C");
});
