/**
 * Accepting an invitation. The link (single-use, 7 days) names the email: a new address sets a password and
 * gets an account; an address with an account signs in with its password. Either way the person joins the
 * organization with the invitation's role and starts a fresh session.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { FAILURES, HttpError } from "../../lib/errors.ts";
import { acceptInvitation, findInvitation, LINK_PROBLEM } from "../../lib/people/invitations.ts";
import { checkPassword } from "../../lib/people/sign_in.ts";
import { createUser, findUserByEmail } from "../../lib/people/users.ts";
import type { Invitation } from "../../lib/people/records.ts";
import { aRole } from "../../lib/people/roles.ts";
import { getOrg } from "../../lib/tenancy/admin.ts";
import { addressOf, type AppEnv, secretField } from "./http.ts";
import { ErrorPage, Layout, orgPath, SECTIONS } from "./layout.tsx";
import { mismatch, NewPasswordFields, startSession } from "./sign_in.tsx";

export function inviteRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock } = ctx.deps;

  const Page = (
    p: { token: string; inv: Invitation; orgName: string; hasAccount: boolean; error?: string },
  ) => (
    <Layout title={`Join ${p.orgName}`} narrow flash={p.error ? { error: p.error } : null}>
      <h1>Join {p.orgName}</h1>
      <p class="lead">
        You are invited as {aRole(p.inv.role)}.{" "}
        {p.hasAccount ? "Sign in with your password to join." : "Choose a password to create your account."}
      </p>
      <form method="post" action={`/app/invite/${p.token}`} class="stack card">
        <label>
          Email <span class="hint">the address this invitation was sent to</span>
          <input type="email" value={p.inv.email} readonly autocomplete="username" />
        </label>
        {p.hasAccount
          ? (
            <label>
              Password
              <input type="password" name="password" autocomplete="current-password" required autofocus />
            </label>
          )
          : <NewPasswordFields />}
        <button type="submit">{p.hasAccount ? "Sign in and join" : "Create account and join"}</button>
      </form>
      {p.hasAccount && (
        <p>
          <a href="/app/reset">Forgot your password?</a>
        </p>
      )}
    </Layout>
  );

  async function load(token: string) {
    const state = await findInvitation(kv, clock, token);
    if (!state.ok) return { problem: LINK_PROBLEM[state.problem] } as const;
    const org = await getOrg(ctx.deps, state.value.org);
    const existing = await findUserByEmail(kv, state.value.email);
    return { inv: state.value, orgName: org.name, existing } as const;
  }

  const gone = (message: string) => <ErrorPage status={410} title="Invitation not valid" message={message} />;

  app.get("/invite/:token", async (c) => {
    const token = c.req.param("token");
    const l = await load(token);
    if ("problem" in l) return c.html(gone(l.problem!), 410);
    return c.html(<Page token={token} inv={l.inv} orgName={l.orgName} hasAccount={l.existing !== null} />);
  });

  app.post("/invite/:token", async (c) => {
    const token = c.req.param("token");
    const l = await load(token);
    if ("problem" in l) return c.html(gone(l.problem!), 410);
    const again = (error: string, status: number, headers?: Record<string, string>) =>
      c.html(
        <Page token={token} inv={l.inv} orgName={l.orgName} hasAccount={l.existing !== null} error={error} />,
        status as 422,
        headers,
      );
    try {
      let user = l.existing;
      if (user) {
        user = await checkPassword(ctx, {
          email: l.inv.email,
          password: secretField(c, "password"),
          addr: addressOf(ctx, c),
        });
      } else {
        const problem = mismatch(c);
        if (problem) return again(problem, FAILURES.invalid.status);
        user = await createUser(
          kv,
          clock,
          l.inv.email,
          secretField(c, "password"),
          ctx.deps.config.passwordCost,
        );
      }
      const m = await acceptInvitation(kv, clock, token, user.id);
      ctx.people.invalidate();
      return await startSession(ctx, c, user, orgPath(m.org, SECTIONS[0].path), `Welcome to ${l.orgName}.`);
    } catch (err) {
      if (!(err instanceof HttpError) || ![401, 422, 429].includes(err.status)) throw err;
      return again(err.message, err.status, err.headers);
    }
  });

  return app;
}
