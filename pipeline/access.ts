/** The types of who calls and what one call may read; pipeline/caller.ts decides them. */
import type { ApiKey, EnvName, Org } from "../lib/store/records.ts";
import type { PlanLimits } from "../lib/tenancy/plans.ts";

/** What one call may read: one organization's environment, under its plan's limits. */
export interface ReadAccess {
  org: Org;
  env: EnvName;
  limits: PlanLimits;
  /** Every organization the caller may read (a read key: its own), for account_overview to list. */
  readable: Org[];
}

/** A read key: bound to one organization and environment when it was created. */
export interface ReadKeyCaller {
  kind: "read_key";
  /** Whose per-minute rate a call spends. */
  id: string;
  key: ApiKey;
  access: ReadAccess;
}

/** An assistant connected as a person (OAuth): several organizations, one environment, chosen per call. */
export interface PersonCaller {
  kind: "person";
  /** The connection: whose per-minute rate a call spends. */
  id: string;
  env: EnvName;
  /** The organizations it reads now (granted and still a member), sorted by name. */
  orgs: Org[];
}

export type Caller = ReadKeyCaller | PersonCaller;

/** What a call reads, and the input left for the tool once the caller's own fields are taken off. */
export interface Authorized {
  access: ReadAccess;
  input: unknown;
}
