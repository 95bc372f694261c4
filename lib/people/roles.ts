/**
 * What each role may do, in one place. Owners: everything, including members and roles. Admins: touchpoints,
 * environments, keys and verified domains, and inviting admins and members. Members: read.
 */
import type { Role } from "./records.ts";

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export const atLeast = (role: Role, min: Role) => RANK[role] >= RANK[min];
export const higherRole = (a: Role, b: Role): Role => (RANK[a] >= RANK[b] ? a : b);

export const can = {
  /** touchpoints, environments, server, public and read keys, verified domains */
  manageSettings: (role: Role) => atLeast(role, "admin"),
  /** change roles and remove members */
  manageMembers: (role: Role) => role === "owner",
  /** an admin invites admins and members; only an owner invites owners */
  invite: (role: Role, invited: Role) => atLeast(role, "admin") && atLeast(role, invited),
};

export const ROLE_LABEL: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };

/** "an owner", "an admin", "a member" */
export const aRole = (role: Role) => `${role === "member" ? "a" : "an"} ${role}`;
