/**
 * `deno task dev`: the demo organization's owner, so the app can be tried at once. The password is random,
 * made once and remembered in the local dev store (never in production: only main.ts --dev calls this).
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import { newToken } from "./secrets.ts";
import { createUser, findUserByEmail } from "./users.ts";
import { addMember } from "./members.ts";

export interface DemoOwner {
  email: string;
  password: string;
}

export async function ensureDemoOwner(deps: Deps, org: string, domain: string): Promise<DemoOwner> {
  const saved = (await deps.kv.get<DemoOwner>(keys.meta("demo_owner"))).value;
  if (saved && await findUserByEmail(deps.kv, saved.email)) return saved;
  const owner: DemoOwner = { email: `owner@${domain}`, password: newToken().slice(0, 20) };
  const user = await findUserByEmail(deps.kv, owner.email) ??
    await createUser(deps.kv, deps.clock, owner.email, owner.password, deps.config.passwordCost);
  await addMember(deps.kv, deps.clock, org, user.id, "owner");
  await deps.kv.set(keys.meta("demo_owner"), owner);
  return owner;
}
