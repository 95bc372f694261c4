/** Bodies of the admin API's people calls. */
import { z } from "zod";
import { ROLES } from "../store/records.ts";

export const CreateInvitation = z.strictObject({
  email: z.string().trim().regex(/^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/, "must be an email address"),
  role: z.enum(ROLES as [string, ...string[]], { error: `must be one of ${ROLES.join(", ")}` }),
});

export type CreateInvitationBody = z.infer<typeof CreateInvitation>;
