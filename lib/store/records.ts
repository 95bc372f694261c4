/**
 * The shapes stored in KV. Addresses (IPs) never sit in these records: they live under their own
 * key (`keys.ip`) and are cleared after 30 days. See docs/events.md for the property conventions.
 */
export type Plan = "free" | "starter" | "professional" | "enterprise";
export const PLANS: readonly Plan[] = ["free", "starter", "professional", "enterprise"];
/** What a plan allows a number of per month; usage is counted per kind under keys.usage. */
export type AllowanceKind = "api_requests" | "assistant_requests" | "individual_items";
export const ALLOWANCE_KINDS: readonly AllowanceKind[] = [
  "api_requests",
  "assistant_requests",
  "individual_items",
];
export type EnvName = "production" | "staging" | "development";
export const ENV_NAMES: readonly EnvName[] = ["production", "staging", "development"];
/** A person's role in an organization (memberships and invitations, lib/people/records.ts). */
export type Role = "owner" | "admin" | "member";
export const ROLES: readonly Role[] = ["owner", "admin", "member"];
export type TouchpointKind = "website" | "ios" | "android";
export type KeyKind = "public" | "server" | "read";

export interface Org {
  id: string;
  name: string;
  plan: Plan;
  timezone: string;
  active: boolean;
  created_at: string;
}

export interface Environment {
  domain: string | null; // websites always have one; apps may not
  enabled: boolean;
}

export interface Touchpoint {
  id: string;
  org: string;
  name: string;
  kind: TouchpointKind;
  archived: boolean;
  environments: Partial<Record<EnvName, Environment>> & { production: Environment };
  created_at: string;
}

export interface ApiKey {
  id: string;
  org: string;
  kind: KeyKind;
  environment: EnvName;
  touchpoint: string | null; // public and server keys
  prefix: string; // first characters, safe to show
  hash: string; // SHA-256 hex of the whole key
  allowed_origins: string[]; // public keys: extra origins, e.g. "https://shop.example.org"
  rate_per_minute: number | null; // public keys: own limit, else the service default
  expires_at: string | null; // read keys
  revoked_at: string | null;
  created_at: string;
}

/** How automated traffic is told apart from visitors; bots and AI agents are never visitors. */
export type Traffic = "human" | "bot" | "ai_agent";

export type Channel =
  | "Direct"
  | "Organic Search"
  | "Paid Search"
  | "Organic Social"
  | "Paid Social"
  | "Email"
  | "Referral"
  | "AI Assistant";

export interface Utm {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
}

/** What we derive from an address at arrival. The address itself is never part of it. */
export interface GeoInfo {
  country: string | null; // ISO 3166-1 alpha-2
  city: string | null;
  asn: number | null;
  as_org: string | null;
}

/** A web (SDK) event as stored at arrival, with everything derived from it. */
export interface StoredEvent {
  v: 1;
  id: string; // event_id
  org: string;
  touchpoint: string;
  env: EnvName;
  received_at: number; // ms; server receive time places the event in time
  device_time: string; // as sent; orders events inside a page load with sequence_no
  anonymous_id: string;
  user_id: string | null;
  session_id: string;
  sequence_no: number;
  /** sequence numbers missing right before this event in its page load, as seen in its batch. */
  gap_before: number;
  platform: "web" | "ios" | "android";
  event_type: string;
  screen: string;
  path: string; // properties.path, else the path of screen
  host: string | null; // host of properties.url, when sent
  fingerprint: Record<string, unknown> | null;
  element: string | null; // a readable element name derived from the fingerprint
  properties: Record<string, unknown>;
  context: Record<string, unknown>;
  geo: GeoInfo;
  browser: string | null;
  os: string | null;
  device_type: "desktop" | "mobile" | "tablet" | "bot" | "other";
  referrer_host: string | null;
  source: string; // "(direct)", a search engine, a social network, an AI engine, a host, or utm_source
  channel: Channel;
  utm: Utm | null;
  traffic: Traffic;
  crawler: string | null; // catalog token when automated, "unknown" for generic automation
}

export type CrawlerCategory =
  | "search_engine"
  | "ai_training"
  | "ai_search"
  | "ai_assistant"
  | "seo_tool"
  | "social_preview"
  | "monitoring"
  | "archiver"
  | "feed_fetcher"
  | "security_scanner"
  | "other";

export type Verification = "pending" | "verified" | "spoofed" | "unverifiable";

/** A crawler hit reported by a customer's server (or a crawler seen by the web SDK). */
export interface StoredHit {
  v: 1;
  id: string; // event_id
  org: string;
  touchpoint: string;
  env: EnvName;
  received_at: number; // ms; arrival time
  timestamp: number; // ms; corrected by sent_at, clamped as the spec says
  host: string; // port stripped, lower case
  path: string;
  method: string; // upper case
  status: number | null;
  user_agent: string; // at most 512 characters
  referer_host: string | null;
  crawler: string; // catalog token, or "unknown" for automation of unknown vendor
  vendor: string | null;
  category: CrawlerCategory;
  site_file: "robots.txt" | "llms.txt" | "llms-full.txt" | "sitemap" | null; // null: a page
  crawled: boolean; // a page the crawler got: GET with 2xx, 304 or unknown status
  geo: GeoInfo;
  /** Initial outcome at arrival; a later outcome lives under keys.verification and wins. */
  verification: Verification;
  via: "server" | "web";
}

/** The outcome of checking a hit's address, stored apart so it stays right after compaction. */
export interface VerificationRecord {
  outcome: Exclude<Verification, "pending">;
  method: "ip_list" | "reverse_dns" | "none";
  reason: string;
  checked_at: number;
}
