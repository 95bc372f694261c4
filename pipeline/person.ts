/**
 * Calls of an assistant connected as a person: every tool takes an `organization` (its id or name) among the
 * organizations the connection reads. With one, it may be left out; with several, leaving it out is a 422
 * that lists the choices, except for tools that describe the account (account_overview answers for the
 * first by name and lists them all). Any plan may be read this way; an inactive plan is a 403.
 */
import { forbidden, invalid } from "../lib/errors.ts";
import type { PlanOverrides } from "../lib/config.ts";
import type { Org } from "../lib/store/records.ts";
import { resolvePlanLimits } from "../lib/tenancy/plans.ts";
import type { Connected } from "../lib/oauth/bearer.ts";
import type { Tool } from "../toolkit/tool.ts";
import type { Authorized, PersonCaller } from "./access.ts";

export const ORGANIZATION_INPUT = "organization";

export const ORGANIZATION_DESCRIPTION =
  "The organization to read: its id or name, one of those account_overview lists. Needed when this " +
  "connection reads several organizations.";

export function personCaller(c: Connected): PersonCaller {
  return {
    kind: "person",
    id: c.grant.id,
    env: c.grant.env,
    orgs: [...c.orgs].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
  };
}

const describe = (orgs: Org[]) => orgs.map((o) => `"${o.name}" (id ${o.id})`).join(", ");

export function pickOrganization(orgs: Org[], named: string | undefined, firstIfUnnamed: boolean): Org {
  if (named === undefined || named.trim() === "") {
    if (orgs.length === 1 || firstIfUnnamed) return orgs[0];
    throw invalid(
      `${ORGANIZATION_INPUT}: name the organization to read; this connection reads ${orgs.length}: ${
        describe(orgs)
      }`,
    );
  }
  const q = named.trim().toLowerCase();
  const byId = orgs.find((o) => o.id === named.trim());
  if (byId) return byId;
  // Names are not unique (any letter case): two fits are ambiguous, answered with the ids to choose from.
  const fits = orgs.filter((o) => o.name.toLowerCase() === q);
  if (fits.length > 1) {
    throw invalid(
      `${ORGANIZATION_INPUT}: "${named}" fits ${fits.length} organizations: give the id: ${describe(fits)}`,
    );
  }
  const found = fits[0];
  if (!found) {
    throw invalid(
      `${ORGANIZATION_INPUT}: this connection does not read "${named}"; choose one of ${describe(orgs)}`,
    );
  }
  return found;
}

export function authorizePerson(
  caller: PersonCaller,
  rawInput: unknown,
  tool: Tool,
  plans: PlanOverrides | undefined,
): Authorized {
  let input = rawInput ?? {};
  let named: string | undefined;
  if (typeof input === "object" && !Array.isArray(input) && ORGANIZATION_INPUT in input) {
    const { [ORGANIZATION_INPUT]: value, ...rest } = input as Record<string, unknown>;
    if (value !== undefined && value !== null && typeof value !== "string") {
      throw invalid(
        `invalid input for ${tool.name}: ${ORGANIZATION_INPUT}: must be a string (an id or a name)`,
      );
    }
    named = value ?? undefined;
    input = rest;
  }
  const org = pickOrganization(caller.orgs, named, tool.describesAccount === true);
  if (!org.active) throw forbidden(`${org.name}'s plan is not active; reactivate it to read data`);
  return {
    access: { org, env: caller.env, limits: resolvePlanLimits(org.plan, plans), readable: caller.orgs },
    input,
  };
}
