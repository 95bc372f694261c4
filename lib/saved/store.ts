/**
 * Saved items in KV: create, change, delete, read, list. A name is taken once per organization (its lower
 * case is a key written in the item's commit); members change their own items, owners and admins all.
 */
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { conflict, forbidden, invalid, notFound } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { Role } from "../people/records.ts";
import { atLeast } from "../people/roles.ts";
import { describeZodError } from "../schemas/zod_errors.ts";
import { definitionSchema } from "./definition.ts";
import type { SavedItem, SavedKind, SavedOf } from "./records.ts";

/** Who is changing something: the person and their role in the organization. */
export interface Editor {
  user: string;
  role: Role;
}

export const canEdit = (editor: Editor, item: SavedItem) =>
  atLeast(editor.role, "admin") || item.author === editor.user;

const name = z.string().trim().min(1, "a name is needed").max(80, "at most 80 characters");
const description = z.string().trim().max(500, "at most 500 characters");
const base = { name, description: description.optional(), touchpoint: z.string().min(1).max(100) };

export const cohortBody = z.strictObject({ ...base, definition: definitionSchema });
export const insightBody = z.strictObject({
  ...base,
  tool: z.string().min(1).max(80),
  input: z.record(z.string(), z.unknown()),
});
export const dashboardBody = z.strictObject({
  ...base,
  insights: z.array(z.string().min(1).max(100)).min(1, "pick at least one insight").max(
    25,
    "at most 25 insights",
  ),
});
const bodies = { cohort: cohortBody, insight: insightBody, dashboard: dashboardBody } as const;
export type SavedBody<K extends SavedKind> = z.infer<(typeof bodies)[K]>;

/** Checks a tool and its inputs (the tools layer passes the registry's check; it throws a 422 naming what is wrong). */
export type InsightCheck = (tool: string, input: Record<string, unknown>) => Record<string, unknown>;

export interface SaveOptions {
  kv: Deno.Kv;
  clock: Clock;
  org: string;
  editor: Editor;
  /** the organization's touchpoints: an item belongs to one of them */
  touchpoints: string[];
  checkInsight: InsightCheck;
}

export function parseBody<K extends SavedKind>(kind: K, raw: unknown): SavedBody<K> {
  const parsed = bodies[kind].safeParse(raw);
  if (!parsed.success) throw invalid(`invalid ${kind}: ${describeZodError(parsed.error, kind)}`);
  return parsed.data as SavedBody<K>;
}

export async function getSaved<K extends SavedKind>(
  kv: Deno.Kv,
  org: string,
  kind: K,
  id: string,
): Promise<SavedOf<K> | null> {
  return (await kv.get<SavedOf<K>>(keys.saved(org, kind, id))).value;
}

/** An item by id, or by name (case-insensitive), of any kind or one kind. */
export async function findSaved(
  kv: Deno.Kv,
  org: string,
  nameOrId: string,
  kind?: SavedKind,
): Promise<SavedItem | null> {
  const ref =
    (await kv.get<{ kind: SavedKind; id: string }>(keys.savedName(org, nameOrId.trim().toLowerCase())))
      .value;
  if (ref && (!kind || ref.kind === kind)) return await getSaved(kv, org, ref.kind, ref.id);
  for (const k of kind ? [kind] : (["cohort", "insight", "dashboard"] as const)) {
    const byId = await getSaved(kv, org, k, nameOrId);
    if (byId) return byId;
  }
  return null;
}

export async function listSaved<K extends SavedKind>(
  kv: Deno.Kv,
  org: string,
  kind: K,
): Promise<SavedOf<K>[]> {
  const out: SavedOf<K>[] = [];
  for await (const e of kv.list<SavedOf<K>>({ prefix: keys.savedOfKind(org, kind) })) out.push(e.value);
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

async function fields<K extends SavedKind>(o: SaveOptions, kind: K, body: SavedBody<K>) {
  if (!o.touchpoints.includes(body.touchpoint)) {
    throw invalid(`touchpoint: no website or app "${body.touchpoint}"`);
  }
  const common = { name: body.name, description: body.description ?? "", touchpoint: body.touchpoint };
  if (kind === "cohort") {
    return { ...common, definition: (body as SavedBody<"cohort">).definition };
  }
  if (kind === "insight") {
    const b = body as SavedBody<"insight">;
    return { ...common, tool: b.tool, input: o.checkInsight(b.tool, b.input) };
  }
  const ids = [...new Set((body as SavedBody<"dashboard">).insights)];
  for (const id of ids) {
    if (!await getSaved(o.kv, o.org, "insight", id)) throw invalid(`insights: no saved insight "${id}"`);
  }
  return { ...common, insights: ids };
}

const changedMeanwhile = () => conflict("it changed meanwhile; reload and try again");
const taken = (n: string) => conflict(`the name "${n}" is taken in this organization`);

export async function createSaved<K extends SavedKind>(
  o: SaveOptions,
  kind: K,
  raw: unknown,
): Promise<SavedOf<K>> {
  const body = parseBody(kind, raw);
  const now = new Date(o.clock.now()).toISOString();
  const item = {
    id: crypto.randomUUID(),
    org: o.org,
    kind,
    ...(await fields(o, kind, body)),
    author: o.editor.user,
    created_at: now,
    updated_at: now,
  } as unknown as SavedOf<K>;
  const nameKey = keys.savedName(o.org, item.name.toLowerCase());
  const res = await o.kv.atomic().check({ key: nameKey, versionstamp: null })
    .set(nameKey, { kind, id: item.id })
    .set(keys.saved(o.org, kind, item.id), item)
    .commit();
  if (!res.ok) throw taken(item.name);
  return item;
}

export async function updateSaved<K extends SavedKind>(
  o: SaveOptions,
  kind: K,
  id: string,
  raw: unknown,
): Promise<SavedOf<K>> {
  const body = parseBody(kind, raw);
  const cur = await o.kv.get<SavedOf<K>>(keys.saved(o.org, kind, id));
  if (!cur.value) throw notFound(`no saved ${kind} "${id}"`);
  if (!canEdit(o.editor, cur.value)) {
    throw forbidden(`only its author, an owner or an admin may change this ${kind}`);
  }
  const next = {
    ...cur.value,
    ...(await fields(o, kind, body)),
    updated_at: new Date(o.clock.now()).toISOString(),
  } as SavedOf<K>;
  const oldName = cur.value.name.toLowerCase(), newName = next.name.toLowerCase();
  const op = o.kv.atomic().check(cur).set(keys.saved(o.org, kind, id), next);
  if (oldName !== newName) {
    const nameKey = keys.savedName(o.org, newName);
    op.check({ key: nameKey, versionstamp: null }).set(nameKey, { kind, id }).delete(
      keys.savedName(o.org, oldName),
    );
  }
  const res = await op.commit();
  if (!res.ok) {
    if (oldName !== newName && (await o.kv.get(keys.savedName(o.org, newName))).value) throw taken(next.name);
    throw changedMeanwhile();
  }
  return next;
}

export async function deleteSaved(kv: Deno.Kv, org: string, editor: Editor, kind: SavedKind, id: string) {
  const cur = await kv.get<SavedItem>(keys.saved(org, kind, id));
  if (!cur.value) throw notFound(`no saved ${kind} "${id}"`);
  if (!canEdit(editor, cur.value)) {
    throw forbidden(`only its author, an owner or an admin may delete this ${kind}`);
  }
  const res = await kv.atomic().check(cur).delete(keys.saved(org, kind, id))
    .delete(keys.savedName(org, cur.value.name.toLowerCase())).commit();
  if (!res.ok) throw changedMeanwhile();
}
