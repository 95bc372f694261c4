/** Organization, touchpoint and key management: what the admin API and the dev seed call. */
import type { Clock } from "../clock.ts";
import type { Deps } from "../deps.ts";
import { invalid, notFound } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { ApiKey, EnvName, Org, Plan, Touchpoint } from "../store/records.ts";
import { displayPrefix, generateKey, randomId, sha256Hex } from "../keys/apikeys.ts";
import { hostOfOrigin, normalizeHost } from "./domains.ts";
import type {
  CreateKeyBody,
  CreateOrgBody,
  CreateTouchpointBody,
  PatchOrgBody,
  PatchTouchpointBody,
} from "../schemas/admin.ts";

const iso = (clock: Clock) => new Date(clock.now()).toISOString();

export async function createOrg({ kv, clock }: Deps, body: CreateOrgBody): Promise<Org> {
  const org: Org = {
    id: randomId("org_"),
    name: body.name,
    plan: (body.plan ?? "professional") as Plan,
    timezone: body.timezone ?? "UTC",
    active: true,
    created_at: iso(clock),
  };
  await kv.set(keys.org(org.id), org);
  return org;
}

export async function getOrg({ kv }: Deps, id: string): Promise<Org> {
  const org = (await kv.get<Org>(keys.org(id))).value;
  if (!org) throw notFound(`no organization ${id}`);
  return org;
}

export async function patchOrg(deps: Deps, id: string, body: PatchOrgBody): Promise<Org> {
  const { kv } = deps;
  const org = { ...(await getOrg(deps, id)), ...body } as Org;
  await kv.set(keys.org(id), org);
  return org;
}

async function markCorsHosts(kv: Deno.Kv, hosts: (string | null | undefined)[]) {
  const op = kv.atomic();
  for (const h of hosts) if (h) op.set(keys.corsHost(normalizeHost(h)), true);
  await op.commit();
}

export async function createTouchpoint(
  deps: Deps,
  orgId: string,
  body: CreateTouchpointBody,
): Promise<Touchpoint> {
  const { kv, clock } = deps;
  await getOrg(deps, orgId);
  const tp: Touchpoint = {
    id: randomId("tp_"),
    org: orgId,
    name: body.name,
    kind: body.kind,
    archived: false,
    environments: { production: { domain: body.domain ?? null, enabled: true } },
    created_at: iso(clock),
  };
  for (const env of ["staging", "development"] as const) {
    const e = body.environments?.[env];
    if (e) tp.environments[env] = { domain: e.domain ?? null, enabled: true };
  }
  await kv.set(keys.touchpoint(orgId, tp.id), tp);
  await markCorsHosts(kv, Object.values(tp.environments).map((e) => e?.domain));
  return tp;
}

export async function getTouchpoint({ kv }: Deps, orgId: string, tpId: string): Promise<Touchpoint> {
  const tp = (await kv.get<Touchpoint>(keys.touchpoint(orgId, tpId))).value;
  if (!tp) throw notFound(`no touchpoint ${tpId} in organization ${orgId}`);
  return tp;
}

export async function patchTouchpoint(
  deps: Deps,
  orgId: string,
  tpId: string,
  body: PatchTouchpointBody,
): Promise<Touchpoint> {
  const { kv } = deps;
  const tp = await getTouchpoint(deps, orgId, tpId);
  if (body.name !== undefined) tp.name = body.name;
  if (body.archived !== undefined) tp.archived = body.archived;
  for (
    const [env, patch] of Object.entries(body.environments ?? {}) as [EnvName, typeof body.environments][]
  ) {
    if (!patch) continue;
    const p = patch as { enabled?: boolean; domain?: string };
    const cur = tp.environments[env] ?? { domain: null, enabled: true };
    tp.environments[env] = { domain: p.domain ?? cur.domain, enabled: p.enabled ?? cur.enabled };
  }
  if (tp.kind === "website" && !tp.environments.production.domain) {
    throw invalid("environments.production.domain: a website needs its production domain");
  }
  await kv.set(keys.touchpoint(orgId, tpId), tp);
  await markCorsHosts(kv, Object.values(tp.environments).map((e) => e?.domain));
  return tp;
}

export async function listTouchpoints({ kv }: Deps, orgId: string): Promise<Touchpoint[]> {
  const out: Touchpoint[] = [];
  for await (const e of kv.list<Touchpoint>({ prefix: keys.touchpoints(orgId) })) out.push(e.value);
  return out;
}

export interface CreatedKey {
  id: string;
  kind: ApiKey["kind"];
  environment: EnvName;
  touchpoint?: string;
  key: string;
}

export async function createKey(
  deps: Deps,
  orgId: string,
  body: CreateKeyBody,
): Promise<CreatedKey> {
  const { kv, clock } = deps;
  const org = await getOrg(deps, orgId);
  const env = body.environment as EnvName;
  let tp: Touchpoint | null = null;
  if (body.kind === "read") {
    if (body.touchpoint) {
      throw invalid("touchpoint: a read key belongs to the organization, not a touchpoint");
    }
    if (org.plan !== "professional" && org.plan !== "enterprise") {
      throw invalid(
        `kind: read keys need the professional or enterprise plan (this organization is on ${org.plan})`,
      );
    }
  } else {
    if (!body.touchpoint) throw invalid(`touchpoint: required for a ${body.kind} key`);
    tp = await getTouchpoint(deps, orgId, body.touchpoint);
    if (!tp.environments[env]) throw invalid(`environment: touchpoint ${tp.id} has no ${env} environment`);
    if (body.kind === "server" && tp.kind !== "website") {
      throw invalid("kind: server keys exist only for websites");
    }
  }
  if (body.allowed_origins && body.kind !== "public") throw invalid("allowed_origins: only for public keys");
  if (body.rate_per_minute && body.kind !== "public") throw invalid("rate_per_minute: only for public keys");
  if (body.expires_at && body.kind !== "read") throw invalid("expires_at: only for read keys");
  if (body.expires_at && Date.parse(body.expires_at) <= clock.now()) {
    throw invalid(`expires_at: ${body.expires_at} has passed; a new key must expire in the future`);
  }

  const raw = generateKey(body.kind, env);
  const record: ApiKey = {
    id: randomId("key_"),
    org: orgId,
    kind: body.kind,
    environment: env,
    touchpoint: tp?.id ?? null,
    prefix: displayPrefix(raw, body.kind, env),
    hash: sha256Hex(raw),
    allowed_origins: (body.allowed_origins ?? []).map((o) => o.replace(/\/$/, "")),
    rate_per_minute: body.rate_per_minute ?? null,
    expires_at: body.expires_at ?? null,
    revoked_at: null,
    created_at: iso(clock),
  };
  await kv.atomic()
    .set(keys.apiKeyByHash(record.hash), record)
    .set(keys.orgApiKey(orgId, record.id), record.hash)
    .commit();
  await markCorsHosts(kv, record.allowed_origins.map(hostOfOrigin));
  return {
    id: record.id,
    kind: record.kind,
    environment: env,
    ...(tp ? { touchpoint: tp.id } : {}),
    key: raw,
  };
}

/** Key listing for operators: ids, kinds and prefixes, never secrets or hashes. */
export async function listKeys(deps: Deps, orgId: string) {
  const { kv } = deps;
  await getOrg(deps, orgId);
  const out = [];
  for await (const e of kv.list<string>({ prefix: keys.orgApiKeys(orgId) })) {
    const k = (await kv.get<ApiKey>(keys.apiKeyByHash(e.value))).value;
    if (!k) continue;
    out.push({
      id: k.id,
      kind: k.kind,
      environment: k.environment,
      touchpoint: k.touchpoint,
      prefix: k.prefix,
      allowed_origins: k.allowed_origins,
      rate_per_minute: k.rate_per_minute,
      expires_at: k.expires_at,
      revoked: k.revoked_at !== null,
      created_at: k.created_at,
    });
  }
  return out;
}

/** Revocation keeps the record (marked) so endpoints can tell a revoked key from an unknown one. */
export async function revokeKey({ kv, clock }: Deps, orgId: string, keyId: string): Promise<void> {
  const hash = (await kv.get<string>(keys.orgApiKey(orgId, keyId))).value;
  const rec = hash ? (await kv.get<ApiKey>(keys.apiKeyByHash(hash))).value : null;
  if (!hash || !rec) throw notFound(`no key ${keyId} in organization ${orgId}`);
  if (!rec.revoked_at) await kv.set(keys.apiKeyByHash(hash), { ...rec, revoked_at: iso(clock) });
}
