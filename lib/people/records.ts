/** The people records stored in KV (keys in lib/store/keys.ts). Secrets are stored only as hashes. */

// A person's role sits with the other stored enums (plans, environments) so request schemas can name it.
import type { Role } from "../store/records.ts";
export { type Role, ROLES } from "../store/records.ts";

export interface User {
  id: string;
  email: string; // lower case; unique
  password_hash: string; // "scrypt$N$r$p$salt$hash" (lib/people/passwords.ts)
  created_at: string;
  /** Sessions (and, later, assistant connections) created before this instant (ms) are no longer valid. */
  sessions_valid_after: number;
}

export interface Membership {
  org: string;
  user: string;
  role: Role;
  created_at: string;
}

export interface Session {
  user: string;
  created_at: number; // ms; absolute expiry counts from here
  last_seen_at: number; // ms; idle expiry counts from here (written at most once a minute)
  csrf: string; // per-session token every state-changing form carries
}

export interface Invitation {
  id: string;
  org: string;
  email: string; // lower case
  role: Role;
  invited_by: string | null; // user id; null: an operator through the admin API
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface PasswordReset {
  user: string;
  created_at: number;
  expires_at: number;
}
