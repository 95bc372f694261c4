/**
 * Grants: one connection of one client for one person, over the organizations they chose. Every use checks
 * the grant again (cached CHECK_CACHE_MS): not ended, no "sign out everywhere" since it was issued, and still
 * a member of each organization. An organization the person left drops out for good (rejoining does not bring
 * it back silently); with none left, the grant ends.
 */
import { readMany } from "../store/read_many.ts";
import { keys } from "../store/keys.ts";
import type { GrantCheck, OAuthContext } from "./state.ts";
import { type Grant, USED_MEMORY_MS } from "./types.ts";

/** Adds a new grant and its indexes to an atomic operation. */
export function writeNewGrant(op: Deno.AtomicOperation, grant: Grant): Deno.AtomicOperation {
  op.check({ key: keys.oauthGrant(grant.id), versionstamp: null }).set(keys.oauthGrant(grant.id), grant)
    .set(keys.oauthUserGrant(grant.user, grant.id), true);
  for (const org of grant.orgs) op.set(keys.oauthOrgGrant(org, grant.id), true);
  return op;
}

export async function loadGrant(ctx: OAuthContext, id: string): Promise<Deno.KvEntryMaybe<Grant>> {
  return await ctx.deps.kv.get<Grant>(keys.oauthGrant(id));
}

/** Ends a grant for good: its tokens stop working everywhere within CHECK_CACHE_MS. */
export async function endGrant(ctx: OAuthContext, id: string, because: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await loadGrant(ctx, id);
    const g = entry.value;
    if (!g || g.disconnected_at !== null) break;
    const ended: Grant = { ...g, disconnected_at: ctx.deps.clock.now(), ended_because: because };
    const op = ctx.deps.kv.atomic().check(entry).set(keys.oauthGrant(id), ended, { expireIn: USED_MEMORY_MS })
      .delete(keys.oauthUserGrant(g.user, id)).delete(keys.oauthGrantUsed(id));
    for (const org of g.orgs) op.delete(keys.oauthOrgGrant(org, id));
    if ((await op.commit()).ok) {
      ctx.deps.log.info("assistant connection ended", { grant: id, because });
      break;
    }
  }
  ctx.oauth.grantChecks.delete(id);
}

/** Removes organizations from a grant (left, or disconnected by an owner); ends it when none is left. */
export async function dropOrgs(
  ctx: OAuthContext,
  id: string,
  drop: string[],
  because: string,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await loadGrant(ctx, id);
    const g = entry.value;
    if (!g || g.disconnected_at !== null) break;
    const orgs = g.orgs.filter((o) => !drop.includes(o));
    if (orgs.length === g.orgs.length) break;
    if (orgs.length === 0) return await endGrant(ctx, id, because);
    const op = ctx.deps.kv.atomic().check(entry).set(keys.oauthGrant(id), { ...g, orgs });
    for (const org of drop) op.delete(keys.oauthOrgGrant(org, id));
    if ((await op.commit()).ok) break;
  }
  ctx.oauth.grantChecks.delete(id);
}

const refused = (reason: string): GrantCheck => ({ ok: false, grant: null, reason });

async function freshCheck(ctx: OAuthContext, id: string): Promise<GrantCheck> {
  const g = (await loadGrant(ctx, id)).value;
  if (!g) return refused("this connection does not exist");
  if (g.disconnected_at !== null) {
    return refused(`this connection ended (${g.ended_because ?? "disconnected"})`);
  }
  const signedOut = await ctx.oauth.people.signedOutEverywhereAt(g.user);
  if (signedOut !== null && g.created_at < signedOut) {
    await endGrant(ctx, id, "signed out everywhere");
    return refused("this connection ended: its person signed out everywhere");
  }
  const member = new Set((await ctx.oauth.people.memberships(g.user)).map((m) => m.org));
  const left = g.orgs.filter((o) => !member.has(o));
  if (left.length === g.orgs.length) {
    await endGrant(ctx, id, "no longer a member of any granted organization");
    return refused("this connection ended: its person is no longer a member of any granted organization");
  }
  if (left.length) await dropOrgs(ctx, id, left, "no longer a member");
  return { ok: true, grant: { ...g, orgs: g.orgs.filter((o) => member.has(o)) }, reason: "" };
}

/** Whether a grant may be used now, and over which organizations; cached for a few seconds. */
export async function checkGrant(ctx: OAuthContext, id: string): Promise<GrantCheck> {
  const now = ctx.deps.clock.now();
  const cached = ctx.oauth.grantChecks.get(id, now);
  if (cached) return cached;
  const result = await freshCheck(ctx, id);
  ctx.oauth.grantChecks.set(id, result, now);
  return result;
}

/** Records the grant's last use, at most once a minute per instance. */
export async function markUsed(ctx: OAuthContext, id: string): Promise<void> {
  const now = ctx.deps.clock.now();
  if (ctx.oauth.lastUsedWritten.get(id, now)) return;
  ctx.oauth.lastUsedWritten.set(id, true, now);
  try {
    await ctx.deps.kv.set(keys.oauthGrantUsed(id), now);
  } catch (err) {
    ctx.deps.log.warn("last use of a connection not recorded", { error: String(err).slice(0, 200) });
  }
}

export interface Connection extends Grant {
  last_used_at: number | null;
}

async function connections(ctx: OAuthContext, ids: string[]): Promise<Connection[]> {
  const out: Connection[] = [];
  const grants = await readMany<Grant>(ctx.deps.kv, ids.map((id) => keys.oauthGrant(id)));
  const used = await readMany<number>(ctx.deps.kv, ids.map((id) => keys.oauthGrantUsed(id)));
  for (let j = 0; j < ids.length; j++) {
    const g = grants[j].value;
    if (!g || g.disconnected_at !== null) continue;
    const check = await checkGrant(ctx, g.id);
    if (!check.ok) continue;
    out.push({ ...check.grant!, last_used_at: used[j].value ?? null });
  }
  return out.sort((a, b) => b.created_at - a.created_at);
}

async function indexIds(ctx: OAuthContext, prefix: Deno.KvKey): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of ctx.deps.kv.list({ prefix })) ids.push(String(e.key[e.key.length - 1]));
  return ids;
}

/** A person's live connections, newest first. */
export async function userConnections(ctx: OAuthContext, user: string): Promise<Connection[]> {
  return await connections(ctx, await indexIds(ctx, keys.oauthUserGrants(user)));
}

/** The live connections that can read an organization (what its owners see), newest first. */
export async function orgConnections(ctx: OAuthContext, org: string): Promise<Connection[]> {
  return (await connections(ctx, await indexIds(ctx, keys.oauthOrgGrants(org)))).filter((c) =>
    c.orgs.includes(org)
  );
}

/** A person disconnects one of their own connections; false when it is not theirs (or already ended). */
export async function disconnectOwn(ctx: OAuthContext, user: string, id: string): Promise<boolean> {
  const g = (await loadGrant(ctx, id)).value;
  if (!g || g.user !== user || g.disconnected_at !== null) return false;
  await endGrant(ctx, id, "disconnected");
  return true;
}

/**
 * A person left or was removed from an organization: their connections stop reading it now, with that reason
 * (this instance at once; another within its few seconds of cached checks). A connection left with no
 * organization ends, saying why (the removal also signs a person left in no organization out everywhere, which
 * the next check would otherwise have given as the reason).
 */
export async function dropOrgForPerson(
  ctx: OAuthContext,
  org: string,
  user: string,
  because: string,
): Promise<void> {
  for (const id of await indexIds(ctx, keys.oauthUserGrants(user))) {
    const g = (await loadGrant(ctx, id)).value;
    if (g && g.disconnected_at === null && g.orgs.includes(org)) await dropOrgs(ctx, id, [org], because);
  }
}

/**
 * An owner disconnects a connection from their organization: it stops reading that organization (the
 * person's other organizations stay connected; with none left it ends). False when it does not read it.
 */
export async function disconnectFromOrg(ctx: OAuthContext, org: string, id: string): Promise<boolean> {
  const g = (await loadGrant(ctx, id)).value;
  if (!g || !g.orgs.includes(org) || g.disconnected_at !== null) return false;
  await dropOrgs(ctx, id, [org], "disconnected by an owner");
  return true;
}
