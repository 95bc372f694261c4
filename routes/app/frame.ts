/** Builds the page frame (who is signed in, their organizations) and the app's error pages. */
import type { AppContext } from "../../lib/context.ts";
import type { Frame, OrgChoice } from "./layout.tsx";
import type { C } from "./http.ts";

export async function frameOf(ctx: AppContext, c: C): Promise<Frame | null> {
  const auth = c.get("auth");
  if (!auth) return null;
  const orgs: OrgChoice[] = [];
  for (const m of await ctx.people.orgsOf(auth.user.id)) {
    const org = await ctx.directory.org(m.org);
    if (org) orgs.push({ id: org.id, name: org.name, role: m.role });
  }
  orgs.sort((a, b) => a.name.localeCompare(b.name));
  const current = c.get("org");
  return {
    email: auth.user.email,
    csrf: auth.session.csrf,
    orgs,
    org: current ? orgs.find((o) => o.id === current.id) : undefined,
  };
}

/** Where to go after signing in: a path inside the app only (never another site). */
export function safeNext(next: string | undefined | null): string {
  if (next && /^\/app(\/[A-Za-z0-9_\-/.]*)?$/.test(next) && !next.includes("//") && !next.includes("..")) {
    return next;
  }
  return "/app";
}
