/**
 * IngestBody and BehaviorEvent, exactly as the spec's tables say. Every string is well-formed Unicode;
 * `properties`, `context` and `fingerprint` are free-form within the limits of json_limits.ts.
 */
import { z } from "zod";
import { dateTime } from "./date_time.ts";
import { PUBLIC_KEY_PATTERN } from "../keys/apikeys.ts";
import { freeForm, wellFormed } from "./json_limits.ts";
import { rangeIssue } from "./capture_ranges.ts";
import { hasLineBreakers } from "../text.ts";

export const CONTROL_MESSAGE =
  "must not hold control characters (line breaks, tabs), line or paragraph separators or bidi overrides";

const str = (min: number, max: number) =>
  wellFormed(
    z.string({ error: "must be a string" })
      .min(min, min === 1 ? "must not be empty" : `must be at least ${min} characters`)
      .max(max, `must be at most ${max} characters`),
  );
const jsonObject = freeForm(z.record(z.string(), z.unknown(), { error: "must be an object" }));
const nullableStr = z.string({ error: "must be a string or null" }).nullable().optional();

// its own fields are checked here; anything else it holds is free-form
export const Fingerprint = freeForm(z.looseObject({
  tag: z.string({ error: "must be a string" }),
  text: nullableStr,
  role: nullableStr,
  id: nullableStr,
  classes: z.array(z.string(), { error: "must be an array of strings or null" }).nullable().optional(),
  selector: z.string({ error: "must be a string" }),
  ordinal: z.number({ error: "must be a number" }).optional(),
}, { error: "must be an object or null" }));

export const BehaviorEvent = z.strictObject({
  // one form per UUID, whichever path an event comes by: the dedupe key must not tell cases apart
  event_id: z.uuid({ error: "must be a UUID" }).toLowerCase(),
  anonymous_id: str(1, 128),
  user_id: wellFormed(
    z.string({ error: "must be a string or null" }).max(128, "must be at most 128 characters"),
  )
    .nullable()
    .optional(),
  session_id: str(1, 128),
  // the size before `.int()`, whose message calls an integer past 2^53 - 1 no integer: the first issue is named
  sequence_no: z.number({ error: "must be an integer" }).min(0, "must be 0 or more")
    .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`)
    .int("must be an integer"),
  platform: z.enum(["web", "ios", "android"], { error: "must be web, ios or android" }),
  // a name is printed in answers and report mail: no line breaks or bidi overrides (docs/events.md)
  event_type: str(1, 120).refine((s) => !hasLineBreakers(s), CONTROL_MESSAGE)
    // a crawler hit stored as a web event would count as a custom event of the site's visitors
    .refine((s) => s !== "$crawl", "$crawl is a crawler hit: send it to /v1/behavior/server-events"),
  screen: str(0, 2048),
  fingerprint: Fingerprint.nullable().optional(),
  properties: jsonObject,
  context: jsonObject.optional(),
  device_time: dateTime(),
}, { error: "must be an object" }).superRefine((ev, ctx) => {
  // capture-layer numbers out of their range would distort page figures (capture_ranges.ts)
  const issue = rangeIssue(ev.event_type, ev.properties);
  if (issue) ctx.addIssue({ code: "custom", path: ["properties", issue.key], message: issue.message });
});

export const IngestBody = z.strictObject({
  api_key: z.string({ error: "must be a string" }).regex(
    PUBLIC_KEY_PATTERN,
    "must be a public write key (svc_pk_…)",
  ),
  batch: z.array(BehaviorEvent, { error: "must be an array of events" })
    .min(1, "must hold 1 to 200 events")
    .max(200, "must hold 1 to 200 events"),
}, { error: "must be a JSON object" });

export type BehaviorEventInput = z.infer<typeof BehaviorEvent>;
export type IngestBodyInput = z.infer<typeof IngestBody>;
