/**
 * People calls of the admin API (mounted under /admin/v1 behind the admin token): an organization's first
 * owner is invited here; after that owners and admins invite from the app.
 */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { readJsonBody } from "../lib/schemas/request_body.ts";
import { CreateInvitation } from "../lib/schemas/people.ts";
import { sendInvitation } from "../lib/people/notify.ts";
import { listMembers } from "../lib/people/members.ts";
import { listInvitations } from "../lib/people/invitations.ts";
import type { Role } from "../lib/people/records.ts";
import { getOrg } from "../lib/tenancy/admin.ts";
import { baseUrl } from "./app/http.ts";

export function adminPeopleRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const { kv } = ctx.deps;

  app.post("/orgs/:org/invitations", async (c) => {
    const body = await readJsonBody(c.req.raw, CreateInvitation);
    const { invitation, url, mailed } = await sendInvitation(ctx, {
      org: c.req.param("org"),
      email: body.email,
      role: body.role as Role,
      invitedBy: null,
      baseUrl: baseUrl(ctx, c),
    });
    return c.json({
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      expires_at: new Date(invitation.expires_at).toISOString(),
      invitation_url: url,
      mailed,
    }, 201);
  });

  app.get("/orgs/:org/members", async (c) => {
    const org = await getOrg(ctx.deps, c.req.param("org"));
    const invitations = (await listInvitations(kv, org.id)).map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expires_at: new Date(i.expires_at).toISOString(),
    }));
    return c.json({ members: await listMembers(kv, org.id), invitations });
  });

  return app;
}
