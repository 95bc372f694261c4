/** The signed-in person's own pages: home (organization picker), account, password, sign out (everywhere). */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { FAILURES, isFailure } from "../../lib/errors.ts";
import { endAllSessions, endSession } from "../../lib/people/sessions.ts";
import { checkPassword } from "../../lib/people/sign_in.ts";
import { setPassword } from "../../lib/people/users.ts";
import {
  addressOf,
  type AppEnv,
  checkCsrf,
  clearSessionCookie,
  pageFlash,
  redirectWith,
  secretField,
  signedIn,
} from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton, SECTIONS } from "./layout.tsx";
import { frameOf } from "./frame.ts";
import { mismatch, NewPasswordFields, startSession } from "./sign_in.tsx";

export function accountRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock } = ctx.deps;

  // Signing out needs no live session (an ended one just clears the cookie), but a live one needs its token.
  app.post("/sign-out", async (c) => {
    const auth = c.get("auth");
    if (auth) {
      checkCsrf(c, auth);
      await endSession(kv, auth.hash, auth.user.id);
    }
    clearSessionCookie(ctx, c);
    return c.redirect("/app/sign-in", 303);
  });

  app.use("/", signedIn);
  app.use("/account", signedIn);
  app.use("/account/*", signedIn);
  app.use("/sign-out-everywhere", signedIn);

  app.get("/", async (c) => {
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    if (frame.orgs.length === 1 && !flash) {
      return c.redirect(orgPath(frame.orgs[0].id, SECTIONS[0].path), 303);
    }
    return c.html(
      <Layout title="Your organizations" frame={frame} flash={flash}>
        <h1>Your organizations</h1>
        {frame.orgs.length === 0
          ? <p>You are not a member of any organization yet. An owner or admin can invite you.</p>
          : (
            <ul>
              {frame.orgs.map((o) => (
                <li>
                  <a href={orgPath(o.id, SECTIONS[0].path)}>{o.name}</a> <span class="muted">({o.role})</span>
                </li>
              ))}
            </ul>
          )}
      </Layout>,
    );
  });

  app.get("/account", async (c) => {
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    return c.html(
      <Layout title="Account" frame={frame} flash={flash}>
        <h1>Account</h1>
        <p class="lead">Signed in as {frame.email}.</p>
        <h2>Change your password</h2>
        <form method="post" action="/app/account/password" class="stack card">
          <CsrfField csrf={frame.csrf} />
          <label>
            Current password
            <input type="password" name="current" autocomplete="current-password" required />
          </label>
          <NewPasswordFields />
          <button type="submit">Change password</button>
        </form>
        <h2>Sign out everywhere</h2>
        <p>
          Ends every session of your account on every device, this one included, and every assistant you
          connected.
        </p>
        <PostButton
          action="/app/sign-out-everywhere"
          csrf={frame.csrf}
          label="Sign out everywhere"
          kind="danger"
          confirm="Sign out on every device?"
        />
      </Layout>,
    );
  });

  app.post("/account/password", async (c) => {
    const auth = c.get("auth")!;
    const problem = mismatch(c);
    if (problem) return await redirectWith(ctx, c, "/app/account", { error: problem });
    try {
      await checkPassword(ctx, {
        email: auth.user.email,
        password: secretField(c, "current"),
        addr: addressOf(ctx, c),
      });
      const user = await setPassword(
        kv,
        auth.user.id,
        secretField(c, "password"),
        ctx.deps.config.passwordCost,
      );
      await endAllSessions(kv, clock, user.id);
      return await startSession(
        ctx,
        c,
        user,
        "/app/account",
        "Password changed; every other session has ended.",
      );
    } catch (err) {
      if (!isFailure(err, "unauthorized") && !isFailure(err, "invalid") && !isFailure(err, "rateLimited")) {
        throw err;
      }
      const msg = err.status === FAILURES.unauthorized.status ? "the current password is wrong" : err.message;
      return await redirectWith(ctx, c, "/app/account", { error: msg });
    }
  });

  app.post("/sign-out-everywhere", async (c) => {
    const auth = c.get("auth")!;
    await endAllSessions(kv, clock, auth.user.id);
    clearSessionCookie(ctx, c);
    return c.redirect("/app/sign-in", 303);
  });

  return app;
}
