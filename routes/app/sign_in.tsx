/** Sign in and password reset (request a link, use it). These pages work without a session. */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { FAILURES, HttpError, isFailure } from "../../lib/errors.ts";
import { checkPassword } from "../../lib/people/sign_in.ts";
import { createSession, endSession } from "../../lib/people/sessions.ts";
import { sendPasswordReset } from "../../lib/people/notify.ts";
import { completeReset, findReset } from "../../lib/people/resets.ts";
import { LINK_PROBLEM } from "../../lib/people/invitations.ts";
import { MIN_PASSWORD_LENGTH } from "../../lib/people/passwords.ts";
import { setFlash } from "../../lib/people/flash.ts";
import type { User } from "../../lib/people/records.ts";
import { addressOf, type AppEnv, baseUrl, type C, field, secretField, setSessionCookie } from "./http.ts";
import { ErrorPage, Layout } from "./layout.tsx";
import { safeNext } from "./frame.ts";

/** Starts a fresh session (a new token: an old one, if any, ends) and sends the browser on. */
export async function startSession(ctx: AppContext, c: C, user: User, to: string, notice?: string) {
  const old = c.get("auth");
  if (old) await endSession(ctx.deps.kv, old.hash, old.user.id);
  const opened = await createSession(ctx.deps.kv, ctx.deps.clock, user.id);
  setSessionCookie(ctx, c, opened);
  if (notice) await setFlash(ctx.deps.kv, opened.hash, { notice });
  return c.redirect(to, 303);
}

const SignInForm = (p: { next: string; email?: string; error?: string }) => (
  <Layout title="Sign in" narrow flash={p.error ? { error: p.error } : null}>
    <h1>Sign in</h1>
    <form method="post" action="/app/sign-in" class="stack card">
      <input type="hidden" name="next" value={p.next} />
      <label>
        Email
        <input type="email" name="email" autocomplete="username" required value={p.email ?? ""} autofocus />
      </label>
      <label>
        Password
        <input type="password" name="password" autocomplete="current-password" required />
      </label>
      <button type="submit">Sign in</button>
    </form>
    <p>
      <a href="/app/reset">Forgot your password?</a>
    </p>
  </Layout>
);

const NewPasswordFields = () => (
  <>
    <label>
      New password <span class="hint">at least {MIN_PASSWORD_LENGTH} characters</span>
      <input
        type="password"
        name="password"
        autocomplete="new-password"
        required
        minlength={MIN_PASSWORD_LENGTH}
      />
    </label>
    <label>
      Repeat it
      <input
        type="password"
        name="password2"
        autocomplete="new-password"
        required
        minlength={MIN_PASSWORD_LENGTH}
      />
    </label>
  </>
);
export { NewPasswordFields };

/** The two password fields must agree; null when they do. */
export function mismatch(c: C): string | null {
  return secretField(c, "password") === secretField(c, "password2") ? null : "the two passwords differ";
}

export function signInRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock } = ctx.deps;

  app.get("/sign-in", (c) => {
    if (c.get("auth")) return c.redirect(safeNext(c.req.query("next")), 303);
    return c.html(<SignInForm next={safeNext(c.req.query("next"))} />);
  });

  app.post("/sign-in", async (c) => {
    const email = field(c, "email");
    const next = safeNext(field(c, "next"));
    try {
      const user = await checkPassword(ctx, {
        email,
        password: secretField(c, "password"),
        addr: addressOf(ctx, c),
      });
      return await startSession(ctx, c, user, next);
    } catch (err) {
      if (!(err instanceof HttpError) || (err.status !== 401 && err.status !== 429)) throw err;
      return c.html(
        <SignInForm next={next} email={email} error={err.message} />,
        err.status as 401,
        err.headers,
      );
    }
  });

  const ResetRequest = (p: { sent?: boolean; error?: string }) => (
    <Layout
      title="Reset your password"
      narrow
      flash={p.error
        ? { error: p.error }
        : p.sent
        ? { notice: "If an account exists for that address, a link to reset its password is on its way." }
        : null}
    >
      <h1>Reset your password</h1>
      <p class="lead">We send a link that works once, for one hour.</p>
      <form method="post" action="/app/reset" class="stack card">
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required />
        </label>
        <button type="submit">Send the link</button>
      </form>
      <p>
        <a href="/app/sign-in">Back to sign in</a>
      </p>
    </Layout>
  );

  app.get("/reset", (c) => c.html(<ResetRequest />));

  app.post("/reset", async (c) => {
    try {
      await sendPasswordReset(ctx, {
        email: field(c, "email"),
        addr: addressOf(ctx, c),
        baseUrl: baseUrl(ctx, c),
      });
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 429) throw err;
      return c.html(<ResetRequest error={err.message} />, 429, err.headers);
    }
    return c.html(<ResetRequest sent />);
  });

  const ResetForm = (p: { token: string; error?: string }) => (
    <Layout title="Choose a new password" narrow flash={p.error ? { error: p.error } : null}>
      <h1>Choose a new password</h1>
      <p class="lead">Saving it signs you out everywhere else.</p>
      <form method="post" action={`/app/reset/${p.token}`} class="stack card">
        <NewPasswordFields />
        <button type="submit">Save and sign in</button>
      </form>
    </Layout>
  );

  app.get("/reset/:token", async (c) => {
    const state = await findReset(kv, clock, c.req.param("token"));
    if (!state.ok) {
      return c.html(
        <ErrorPage status={410} title="Link not valid" message={LINK_PROBLEM[state.problem]} />,
        410,
      );
    }
    return c.html(<ResetForm token={c.req.param("token")} />);
  });

  app.post("/reset/:token", async (c) => {
    const token = c.req.param("token");
    const problem = mismatch(c);
    if (problem) return c.html(<ResetForm token={token} error={problem} />, FAILURES.invalid.status);
    try {
      const user = await completeReset(
        kv,
        clock,
        token,
        secretField(c, "password"),
        ctx.deps.config.passwordCost,
      );
      return await startSession(
        ctx,
        c,
        user,
        "/app",
        "Your password is changed; every other session has ended.",
      );
    } catch (err) {
      if (!isFailure(err, "invalid")) throw err;
      return c.html(<ResetForm token={token} error={err.message} />, FAILURES.invalid.status);
    }
  });

  return app;
}
