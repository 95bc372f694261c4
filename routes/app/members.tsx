/**
 * Settings → Members: everyone sees who is in; owners and admins invite (an admin invites admins and members);
 * owners change roles and remove people; anyone may leave. The organization always keeps an owner.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { forbidden, invalid, isFailure } from "../../lib/errors.ts";
import { changeRole, listMembers, removeFromOrganization } from "../../lib/people/members.ts";
import { dropOrgForPerson } from "../../lib/oauth/grants.ts";
import { listInvitations, revokeInvitation } from "../../lib/people/invitations.ts";
import { sendInvitation } from "../../lib/people/notify.ts";
import { type Role, ROLES } from "../../lib/people/records.ts";
import { can, ROLE_LABEL } from "../../lib/people/roles.ts";
import { act, type AppEnv, baseUrl, field, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { shortDate } from "../../lib/format/times.ts";

const path = (org: string) => orgPath(org, "settings/members");
const asRole = (v: string): Role => {
  if (!(ROLES as readonly string[]).includes(v)) throw invalid(`role: must be one of ${ROLES.join(", ")}`);
  return v as Role;
};

export function membersRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock } = ctx.deps;
  const p = "/o/:org/settings/members";

  app.get(p, orgMember(ctx, "member"), async (c) => {
    const org = c.get("org");
    const me = c.get("membership");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const members = await listMembers(kv, org.id);
    const invitations = can.manageSettings(me.role) ? await listInvitations(kv, org.id) : [];
    const now = clock.now();
    const invitable = ROLES.filter((r) => can.invite(me.role, r));
    return c.html(
      <Layout title={`Members · ${org.name}`} frame={frame} section="members" flash={flash}>
        <h1>Members</h1>
        <p class="lead">
          Owners manage members and roles; owners and admins manage touchpoints, keys and verified domains;
          members read.
        </p>
        <Table columns={["Email", "Role", "Member since"]} actions>
          {members.map((m) => (
            <tr>
              <td>{m.email} {m.user === me.user && <span class="badge">you</span>}</td>
              <td>
                {can.manageMembers(me.role)
                  ? (
                    <form method="post" action={`${path(org.id)}/${m.user}/role`} class="row">
                      <CsrfField csrf={frame.csrf} />
                      <select name="role" aria-label={`Role of ${m.email}`}>
                        {ROLES.map((r) => <option value={r} selected={r === m.role}>{ROLE_LABEL[r]}</option>)}
                      </select>
                      <button type="submit" class="secondary">Change</button>
                    </form>
                  )
                  : ROLE_LABEL[m.role]}
              </td>
              <td class="nowrap">{shortDate(m.created_at)}</td>
              <td>
                {m.user === me.user
                  ? (
                    <PostButton
                      action={`${path(org.id)}/leave`}
                      csrf={frame.csrf}
                      label="Leave"
                      kind="danger"
                      confirm={`Leave ${org.name}?`}
                    />
                  )
                  : can.manageMembers(me.role) && (
                    <PostButton
                      action={`${path(org.id)}/${m.user}/remove`}
                      csrf={frame.csrf}
                      label="Remove"
                      kind="danger"
                      confirm={`Remove ${m.email} from ${org.name}?`}
                    />
                  )}
              </td>
            </tr>
          ))}
        </Table>
        {invitations.length > 0 && (
          <>
            <h2>Pending invitations</h2>
            <Table columns={["Email", "Role", "Expires"]} actions>
              {invitations.map((i) => (
                <tr>
                  <td>{i.email}</td>
                  <td>{ROLE_LABEL[i.role]}</td>
                  <td>
                    {i.expires_at <= now ? "expired" : shortDate(new Date(i.expires_at).toISOString())}
                  </td>
                  <td>
                    <PostButton
                      action={`${orgPath(org.id, "settings/invitations")}/${i.id}/revoke`}
                      csrf={frame.csrf}
                      label="Withdraw"
                      kind="danger"
                    />
                  </td>
                </tr>
              ))}
            </Table>
          </>
        )}
        {invitable.length > 0 && (
          <>
            <h2 id="invite">Invite someone</h2>
            <form method="post" action={`${path(org.id)}/invite`} class="card stack" aria-labelledby="invite">
              <CsrfField csrf={frame.csrf} />
              <div class="row">
                <label>
                  Email
                  <input type="email" name="email" required autocomplete="off" />
                </label>
                <div class="field">
                  <label for="invite-role">Role</label>
                  <select id="invite-role" name="role">
                    {invitable.map((r) => (
                      <option value={r} selected={r === "member"}>{ROLE_LABEL[r]}</option>
                    ))}
                  </select>
                </div>
              </div>
              <p class="hint">We email a link that works once, for 7 days.</p>
              <div>
                <button type="submit">Send invitation</button>
              </div>
            </form>
          </>
        )}
      </Layout>,
    );
  });

  app.post(`${p}/invite`, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    const me = c.get("membership");
    return act(ctx, c, path(org.id), async () => {
      const role = asRole(field(c, "role"));
      if (!can.invite(me.role, role)) throw forbidden(`role: only an owner invites ${role}s`);
      const { invitation, mailed } = await sendInvitation(ctx, {
        org: org.id,
        email: field(c, "email"),
        role,
        invitedBy: me.user,
        baseUrl: baseUrl(ctx, c),
      });
      return mailed
        ? `Invitation sent to ${invitation.email}.`
        : `Invitation made for ${invitation.email}, but the mail server did not take the message. ` +
          "Check the address, or remove the invitation and invite again later.";
    });
  });

  app.post(`${p}/leave`, orgMember(ctx, "member"), async (c) => {
    const org = c.get("org");
    const me = c.get("membership");
    try {
      await removeFromOrganization(kv, clock, org.id, me.user);
      await dropOrgForPerson(ctx, org.id, me.user, "left the organization");
    } catch (err) {
      if (isFailure(err, "invalid")) {
        return await redirectWith(ctx, c, path(org.id), { error: err.message });
      }
      throw err;
    }
    ctx.people.invalidate();
    return await redirectWith(ctx, c, "/app", { notice: `You left ${org.name}.` });
  });

  app.post(`${p}/:user/role`, orgMember(ctx, "owner"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const role = asRole(field(c, "role"));
      await changeRole(kv, org.id, c.req.param("user"), role);
      return "Role changed.";
    });
  });

  app.post(`${p}/:user/remove`, orgMember(ctx, "owner"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      await removeFromOrganization(kv, clock, org.id, c.req.param("user"));
      // ended with its reason now (not "signed out everywhere", nor one more answer from a cached check)
      await dropOrgForPerson(ctx, org.id, c.req.param("user"), "removed from the organization");
      return "Member removed; their access ended at once.";
    });
  });

  app.post("/o/:org/settings/invitations/:id/revoke", orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const found = await revokeInvitation(kv, org.id, c.req.param("id"));
      return found ? "Invitation withdrawn: its link no longer works." : { error: "no such invitation" };
    });
  });

  return app;
}
