/**
 * The two messages people get: an invitation and a password reset link. The one place that writes them
 * and sends them, for the admin API and the app alike.
 */
import { logMailer, mailFailure, type MailMessage } from "../mail.ts";
import { getOrg } from "../tenancy/admin.ts";
import { createInvitation, INVITATION_MS, invitationPath } from "./invitations.ts";
import type { Invitation, Role } from "./records.ts";
import { createReset, RESET_MS, resetPath } from "./resets.ts";
import { type PeopleContext, takeInvitation, takeResetRequest } from "./abuse.ts";
import { aRole } from "./roles.ts";

const mailer = (ctx: PeopleContext) => ctx.deps.mail ?? logMailer(ctx.deps.log);
const days = (ms: number) => Math.round(ms / 86_400_000);

/**
 * Creates an invitation and mails its link; answers the link too (the admin API shows it to the operator).
 * A mail the server refuses does not undo the invitation: `mailed` says so, and the log says why (masked).
 */
export async function sendInvitation(
  ctx: PeopleContext,
  input: { org: string; email: string; role: Role; invitedBy: string | null; baseUrl: string },
): Promise<{ invitation: Invitation; url: string; mailed: boolean }> {
  const org = await getOrg(ctx.deps, input.org);
  await takeInvitation(ctx, org.id);
  const { invitation, token } = await createInvitation(ctx.deps.kv, ctx.deps.clock, input);
  const url = input.baseUrl + invitationPath(token);
  const mailed = await trySend(ctx, "invitation mail not sent", {
    to: invitation.email,
    subject: `You are invited to ${org.name}`,
    text: [
      `You are invited to join ${org.name} as ${aRole(invitation.role)}.`,
      "",
      "Open this link to accept (it works once, for " + days(INVITATION_MS) + " days):",
      url,
      "",
      "If you did not expect this, ignore this message.",
    ].join("\n"),
  });
  ctx.deps.log.info(mailed ? "invitation sent" : "invitation made, mail not sent", {
    org: org.id,
    invitation: invitation.id,
    role: invitation.role,
  });
  return { invitation, url, mailed };
}

/**
 * Mails a reset link when the address has an account; the caller answers the same either way, so a mail
 * the server refuses is logged (masked) and not thrown: a 500 would tell that the account exists.
 */
export async function sendPasswordReset(
  ctx: PeopleContext,
  input: { email: string; addr: string | null; baseUrl: string },
): Promise<void> {
  await takeResetRequest(ctx, input.addr, input.email);
  const made = await createReset(ctx.deps.kv, ctx.deps.clock, input.email);
  if (!made) return;
  await trySend(ctx, "password reset mail not sent", {
    to: made.user.email,
    subject: "Reset your password",
    text: [
      "Someone (we hope you) asked to reset the password of your account.",
      "",
      `Open this link to choose a new one (it works once, for ${RESET_MS / 60_000} minutes):`,
      input.baseUrl + resetPath(made.token),
      "",
      "Setting a new password signs you out everywhere. If you did not ask, ignore this message.",
    ].join("\n"),
  });
}

/** Sends one message; a refusal is logged without the address (MailNotSent masks it) and answered as false. */
async function trySend(ctx: PeopleContext, what: string, msg: MailMessage): Promise<boolean> {
  try {
    await mailer(ctx).send(msg);
    return true;
  } catch (err) {
    ctx.deps.log.error(what, { error: mailFailure(err) });
    return false;
  }
}
