/** Bodies of the admin API. */
import { z } from "zod";
import { dateTime } from "./date_time.ts";
import { ENV_NAMES, PLANS } from "../store/records.ts";
import { isValidTimezone } from "../time/zone.ts";
import { wellFormed } from "./json_limits.ts";
import { isPublicSuffix, publicSuffixMessage } from "../domain_suffix.ts";

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** A website environment's domain: a host name that is not a public suffix (claiming "com" claims every .com). */
const domain = z.string().trim().toLowerCase().regex(HOST, "must be a host name such as example.com")
  .superRefine((d, ctx) => {
    if (HOST.test(d) && isPublicSuffix(d)) ctx.addIssue({ code: "custom", message: publicSuffixMessage(d) });
  });
/** A name as shown in answers: 1 to 200 characters of well-formed Unicode. */
const name = wellFormed(z.string().trim().min(1, "must not be empty").max(200));
const plan = z.enum(PLANS as [string, ...string[]], { error: `must be one of ${PLANS.join(", ")}` });
const timezone = z.string().refine(isValidTimezone, "must be an IANA time zone such as Europe/Paris");
const envName = z.enum(ENV_NAMES as [string, ...string[]], {
  error: `must be one of ${ENV_NAMES.join(", ")}`,
});

export const CreateOrg = z.strictObject({
  name,
  plan: plan.optional(),
  timezone: timezone.optional(),
});

export const PatchOrg = z.strictObject({
  name: name.optional(),
  plan: plan.optional(),
  timezone: timezone.optional(),
  active: z.boolean().optional(),
});

export const CreateTouchpoint = z.strictObject({
  name,
  kind: z.enum(["website", "ios", "android"], { error: "must be website, ios or android" }),
  domain: domain.optional(),
  environments: z.strictObject({
    staging: z.strictObject({ domain: domain.optional() }).optional(),
    development: z.strictObject({ domain: domain.optional() }).optional(),
  }).optional(),
}).refine((b) => b.kind !== "website" || b.domain, {
  path: ["domain"],
  message: "a website needs its production domain",
});

const envPatch = z.strictObject({ enabled: z.boolean().optional(), domain: domain.optional() });
export const PatchTouchpoint = z.strictObject({
  name: name.optional(),
  archived: z.boolean().optional(),
  environments: z.strictObject({
    production: envPatch.optional(),
    staging: envPatch.optional(),
    development: envPatch.optional(),
  }).optional(),
});

const origin = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && u.origin === s.replace(/\/$/, "");
  } catch {
    return false;
  }
}, "must be an origin such as https://shop.example.com");

export const CreateKey = z.strictObject({
  kind: z.enum(["public", "server", "read"], { error: "must be public, server or read" }),
  environment: envName,
  touchpoint: z.string().min(1).optional(),
  allowed_origins: z.array(origin).max(50).optional(),
  rate_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  expires_at: dateTime().optional(),
});

export type CreateOrgBody = z.infer<typeof CreateOrg>;
export type PatchOrgBody = z.infer<typeof PatchOrg>;
export type CreateTouchpointBody = z.infer<typeof CreateTouchpoint>;
export type PatchTouchpointBody = z.infer<typeof PatchTouchpoint>;
export type CreateKeyBody = z.infer<typeof CreateKey>;
