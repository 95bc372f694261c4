/**
 * The one place that builds KV key tuples. Nothing else in the code base writes a key literal.
 * Layout rules: no hot keys on the ingest path (one key per event), time-ordered raw keys so
 * compaction can list closed windows, addresses under their own day-bucketed prefix so the
 * 30-day sweep lists only what is due.
 */
import type { EnvName } from "./records.ts";

const DAY_MS = 86_400_000;
export const dayNumber = (ms: number) => Math.floor(ms / DAY_MS);

export const keys = {
  // tenancy
  org: (org: string) => ["org", org] as const,
  orgs: () => ["org"] as const,
  touchpoint: (org: string, tp: string) => ["tp", org, tp] as const,
  touchpoints: (org: string) => ["tp", org] as const,
  apiKeyByHash: (hash: string) => ["apikey", hash] as const,
  orgApiKey: (org: string, keyId: string) => ["org_apikey", org, keyId] as const,
  orgApiKeys: (org: string) => ["org_apikey", org] as const,
  /** Hosts that may send browser events (preflight answers): a touchpoint domain or an allowed origin's host. */
  corsHost: (host: string) => ["cors_host", host] as const,
  meta: (name: string) => ["meta", name] as const,

  // people (lib/people): users, memberships both ways, sessions, single-use links, flash messages
  user: (userId: string) => ["user", userId] as const,
  /** email (lower case) → user id; written in the same commit as the user, so an address is taken once */
  userByEmail: (email: string) => ["user_email", email] as const,
  membership: (org: string, userId: string) => ["member", org, userId] as const,
  memberships: (org: string) => ["member", org] as const,
  userOrg: (userId: string, org: string) => ["user_org", userId, org] as const,
  userOrgs: (userId: string) => ["user_org", userId] as const,
  session: (tokenHash: string) => ["session", tokenHash] as const,
  userSession: (userId: string, tokenHash: string) => ["user_session", userId, tokenHash] as const,
  userSessions: (userId: string) => ["user_session", userId] as const,
  /** invitations and password resets, by the SHA-256 of their link token */
  invitation: (tokenHash: string) => ["invite", tokenHash] as const,
  orgInvitation: (org: string, inviteId: string) => ["org_invite", org, inviteId] as const,
  orgInvitations: (org: string) => ["org_invite", org] as const,
  passwordReset: (tokenHash: string) => ["pw_reset", tokenHash] as const,
  /** the next page's message for a session (a new key travels in it encrypted with the session's token) */
  flash: (sessionHash: string) => ["flash", sessionHash] as const,

  // ingest
  dedupe: (org: string, eventId: string) => ["dedupe", org, eventId] as const,
  rawEvent: (org: string, env: EnvName, receivedMs: number, eventId: string) =>
    ["raw_ev", org, env, receivedMs, eventId] as const,
  rawEvents: (org: string, env: EnvName) => ["raw_ev", org, env] as const,
  rawHit: (org: string, env: EnvName, receivedMs: number, eventId: string) =>
    ["raw_hit", org, env, receivedMs, eventId] as const,
  rawHits: (org: string, env: EnvName) => ["raw_hit", org, env] as const,
  /** The address of an event or hit, apart from it, as `{ip, at}` (at: receive ms); expires after 30 days, swept hourly. */
  ip: (receivedMs: number, org: string, eventId: string) =>
    ["ip", dayNumber(receivedMs), org, eventId] as const,
  ipDay: (day: number) => ["ip", day] as const,
  /** The addresses of a group of crawler hits stored in one commit (`{at, ips: {event_id: ip}}`), same sweep. */
  ipGroup: (receivedMs: number, org: string, groupId: string) =>
    ["ip", dayNumber(receivedMs), org, `group:${groupId}`] as const,
  ips: () => ["ip"] as const,

  // crawler verification
  verification: (org: string, eventId: string) => ["verification", org, eventId] as const,
  verifications: (org: string) => ["verification", org] as const,
  verifyPending: (org: string, eventId: string) => ["verify_pending", org, eventId] as const,
  verifyPendingAll: () => ["verify_pending"] as const,
  ipRanges: (listId: string) => ["ip_ranges", listId] as const,
  /** A refreshed list's prefixes, in chunks under KV's 64 KiB value limit (Ahrefs publishes ~10,000). */
  ipRangesChunk: (listId: string, index: number) => ["ip_ranges_chunk", listId, index] as const,

  // limits and allowances
  /** One instance's admissions of `id` in one minute (lib/limits/rate.ts); expires with its window. */
  rate: (scope: string, id: string, minute: number, instance: string) =>
    ["rate", scope, id, minute, instance] as const,
  rateWindow: (scope: string, id: string, minute: number) => ["rate", scope, id, minute] as const,
  rates: () => ["rate"] as const,
  /** One unknown-key attempt from an address (hashed): a key each, so concurrent strikes all count. */
  unknownKeyStrike: (addrHash: string, atMs: number, strikeId: string) =>
    ["unknown_key", addrHash, atMs, strikeId] as const,
  unknownKeyStrikesSince: (addrHash: string, atMs: number) => ["unknown_key", addrHash, atMs] as const,
  unknownKeyStrikes: (addrHash: string) => ["unknown_key", addrHash] as const,
  unknownKeyBlock: (addrHash: string) => ["unknown_key_block", addrHash] as const,
  /** the days of an environment whose web events were sampled, with each day's lowest rate (lib/ingest/sampled.ts) */
  sampled: (org: string, env: string) => ["sampled", org, env] as const,
  allUnknownKeyStrikes: () => ["unknown_key"] as const,
  allUnknownKeyBlocks: () => ["unknown_key_block"] as const,
  usage: (org: string, month: string, kind: string) => ["usage", org, month, kind] as const,

  // read engine: immutable columnar parts, their chunks, and the compaction progress
  part: (org: string, env: EnvName, kind: "ev" | "hit", partId: string) =>
    ["part", org, env, kind, partId] as const,
  parts: (org: string, env: EnvName, kind: "ev" | "hit") => ["part", org, env, kind] as const,
  partChunk: (partId: string, index: number) => ["part_chunk", partId, index] as const,
  partChunks: (partId: string) => ["part_chunk", partId] as const,
  /** a part's column directory, apart from its index entry so listing the index stays cheap */
  partDir: (partId: string) => ["part_dir", partId] as const,
  compactMark: (org: string, env: EnvName, kind: "ev" | "hit") => ["compact_mark", org, env, kind] as const,
  /**
   * Written in the same commit as every change of a kind's part index (lib/parts/store.ts `touchIndex`): a
   * reader that finds its versionstamp (and the compaction mark's) unchanged knows the index is as it listed it.
   */
  partsVersion: (org: string, env: EnvName, kind: "ev" | "hit") => ["parts_version", org, env, kind] as const,
  /** Dense visitor numbers per organization and environment (lib/parts/visitor_numbers.ts): id → number. */
  visitorNumber: (org: string, env: EnvName, anonymousId: string) =>
    ["visitor_no", org, env, anonymousId] as const,
  /** The next visitor number to give out in an environment. */
  visitorCount: (org: string, env: EnvName) => ["visitor_count", org, env] as const,
  /** An event part's hourly rollup (lib/query/rollup/store.ts): its size and chunk count; chunks beside. */
  rollup: (partId: string) => ["rollup", partId] as const,
  rollupChunk: (partId: string, index: number) => ["rollup_chunk", partId, index] as const,
  rollupChunks: (partId: string) => ["rollup_chunk", partId] as const,
  /** A hit part's hourly rollup (lib/query/hit_rollup/store.ts): its entry, written after its chunks. */
  hitRollup: (partId: string) => ["hit_rollup", partId] as const,
  hitRollupChunk: (partId: string, index: number) => ["hit_rollup_chunk", partId, index] as const,
  hitRollupChunks: (partId: string) => ["hit_rollup_chunk", partId] as const,
  /** An event part's Web Vitals histograms (lib/query/vitals/store.ts): its entry, written after its chunks. */
  vitals: (partId: string) => ["vitals", partId] as const,
  vitalsChunk: (partId: string, index: number) => ["vitals_chunk", partId, index] as const,
  vitalsChunks: (partId: string) => ["vitals_chunk", partId] as const,
  /** An event part's property rollup (lib/query/prop_rollup/store.ts): its entry, written after its chunks. */
  propRollup: (partId: string) => ["prop_rollup", partId] as const,
  propRollupChunk: (partId: string, index: number) => ["prop_rollup_chunk", partId, index] as const,
  propRollupChunks: (partId: string) => ["prop_rollup_chunk", partId] as const,
  /** An event part's feature table (lib/query/feature_rollup/store.ts): its entry, written after its chunks. */
  featureRollup: (partId: string) => ["feature_rollup", partId] as const,
  featureRollupChunk: (partId: string, index: number) => ["feature_rollup_chunk", partId, index] as const,
  featureRollupChunks: (partId: string) => ["feature_rollup_chunk", partId] as const,
  /** An event part's step column (lib/query/step_column/store.ts): its entry, written after its chunks. */
  stepColumn: (partId: string) => ["step_col", partId] as const,
  stepColumnChunk: (partId: string, index: number) => ["step_col_chunk", partId, index] as const,
  stepColumnChunks: (partId: string) => ["step_col_chunk", partId] as const,
  /** The run compacting an environment's events or hits now, renewed while it runs (lib/jobs/compact_lease.ts). */
  compactLease: (org: string, env: EnvName, kind: "ev" | "hit") => ["compact_lease", org, env, kind] as const,
  /** A record that could not be read or decoded, moved aside from `key` (lib/store/readable.ts). */
  quarantined: (org: string, key: Deno.KvKey) => ["quarantine", org, ...key] as const,
  quarantine: (org: string) => ["quarantine", org] as const,
  /** Which instance runs a scheduled job's current slot (lib/jobs/lease.ts). */
  jobLease: (job: string) => ["job_lease", job] as const,

  // app-review feedback (lib/feedback): apps, their store listings, credentials, fetch status, reviews
  feedbackApp: (org: string, app: string) => ["fb_app", org, app] as const,
  feedbackApps: (org: string) => ["fb_app", org] as const,
  feedbackAppsAll: () => ["fb_app"] as const,
  /** (store, store id) → app id: one app per store listing in an organization */
  feedbackAppByStoreId: (org: string, store: string, storeId: string) =>
    ["fb_app_store", org, store, storeId] as const,
  feedbackListing: (org: string, app: string) => ["fb_listing", org, app] as const,
  /** store API credentials, AES-GCM encrypted */
  feedbackCredential: (org: string, app: string) => ["fb_cred", org, app] as const,
  feedbackStatus: (org: string, app: string) => ["fb_status", org, app] as const,
  /** one review, idempotent on (store, review id): the app stands for its store and store id */
  feedbackReview: (org: string, app: string, reviewId: string) => ["fb_review", org, app, reviewId] as const,
  feedbackReviews: (org: string, app: string) => ["fb_review", org, app] as const,
  /** the same review again, by its first date: a period reads only its own (written in the review's commit) */
  feedbackReviewAt: (org: string, app: string, at: number, reviewId: string) =>
    ["fb_review_at", org, app, at, reviewId] as const,
  feedbackReviewsAt: (org: string, app: string) => ["fb_review_at", org, app] as const,
  /** set by the review job once every stored review of the app has its date key (lib/feedback/review_dates.ts) */
  feedbackReviewsDated: (org: string, app: string) => ["fb_review_dated", org, app] as const,
  /** how far the job giving date keys to an older app's reviews has come (lib/feedback/review_dates.ts) */
  feedbackReviewDating: (org: string, app: string) => ["fb_review_dating", org, app] as const,
  /** bumped in the commit of every review write, so per-instance caches know when to reload */
  feedbackStamp: (org: string, app: string) => ["fb_stamp", org, app] as const,
  feedbackLease: (org: string, app: string) => ["fb_lease", org, app] as const,
  /** how far the review fetch has read the store's history, one key per lane (lib/feedback/walk.ts) */
  feedbackWalks: (org: string, app: string) => ["fb_walk", org, app] as const,
  /** how far the job that re-analyses an app's stored reviews after an analysis change has come */
  feedbackReanalysis: (org: string, app: string) => ["fb_reanalysis", org, app] as const,
  /** an organization's verified domains (the people module writes them; ownership reads them) */
  verifiedDomain: (org: string, domain: string) => ["vdomain", org, domain] as const,
  verifiedDomains: (org: string) => ["vdomain", org] as const,

  // saved cohorts, insights and dashboards (lib/saved)
  saved: (org: string, kind: string, id: string) => ["saved", org, kind, id] as const,
  savedOfKind: (org: string, kind: string) => ["saved", org, kind] as const,
  /** name (lower case) → `{kind, id}`: written in the same commit as the item, so a name is taken once */
  savedName: (org: string, name: string) => ["saved_name", org, name] as const,

  // read side
  robots: (org: string, tp: string, env: EnvName) => ["robots", org, tp, env] as const,
  /** each robots.txt version a site served, by the time it was first seen (ms) */
  robotsVersion: (org: string, tp: string, env: EnvName, since: number) =>
    ["robots_version", org, tp, env, since] as const,
  robotsVersions: (org: string, tp: string, env: EnvName) => ["robots_version", org, tp, env] as const,
  /** a version's body in chunks of at most 60 000 bytes (a KV value holds 64 KiB) */
  robotsVersionChunk: (org: string, tp: string, env: EnvName, since: number, i: number) =>
    ["robots_body", org, tp, env, since, i] as const,
  robotsVersionChunks: (org: string, tp: string, env: EnvName, since: number) =>
    ["robots_body", org, tp, env, since] as const,

  // intelligence reports (lib/reports): one key per (touchpoint, kind, period), a claim until it is complete
  report: (org: string, env: EnvName, id: string) => ["report", org, env, id] as const,
  reports: (org: string, env: EnvName) => ["report", org, env] as const,
  /** The whole report's mail mark of the code before 28 Nov 2026: a report carrying it is not mailed again. */
  reportMailed: (org: string, env: EnvName, id: string) => ["report_mailed", org, env, id] as const,
  /** One recipient's mail of a report: claimed before the send, kept once sent, given back when it failed. */
  reportMailedTo: (org: string, env: EnvName, id: string, userId: string) =>
    ["report_mailed", org, env, id, userId] as const,
  /** A member who asked for reports by mail. */
  reportMailOptIn: (org: string, userId: string) => ["report_mail", org, userId] as const,
  reportMailOptIns: (org: string) => ["report_mail", org] as const,

  // assistants (OAuth for MCP): secrets (codes, tokens, client secrets) only ever appear here as SHA-256 hashes
  /** A dynamically registered client (RFC 7591); metadata-document clients are fetched, never stored. */
  oauthClient: (clientId: string) => ["oauth_client", clientId] as const,
  /** An authorization request shown on the consent page, bound to the person who saw it (minutes). */
  oauthPending: (id: string) => ["oauth_pending", id] as const,
  oauthCode: (hash: string) => ["oauth_code", hash] as const,
  oauthGrant: (grantId: string) => ["oauth_grant", grantId] as const,
  /** When a grant was last used (ms): apart from the grant so requests never rewrite the grant itself. */
  oauthGrantUsed: (grantId: string) => ["oauth_grant_used", grantId] as const,
  oauthUserGrant: (user: string, grantId: string) => ["oauth_user_grant", user, grantId] as const,
  oauthUserGrants: (user: string) => ["oauth_user_grant", user] as const,
  oauthOrgGrant: (org: string, grantId: string) => ["oauth_org_grant", org, grantId] as const,
  oauthOrgGrants: (org: string) => ["oauth_org_grant", org] as const,
  oauthAccess: (hash: string) => ["oauth_access", hash] as const,
  oauthRefresh: (hash: string) => ["oauth_refresh", hash] as const,
};
