/**
 * ServerEventsBody, CrawlEvent and ServerEventsResult as the spec's tables say, plus the endpoint's OpenAPI
 * paths. The envelope (`events`, `sent_at`) is checked by the route (422 only for it); each CrawlEvent is
 * judged on its own by lib/ingest/hits.ts, where a failure is counted as rejected.invalid, never a 422.
 */
import { z } from "zod";
import { dateTime } from "./date_time.ts";
import { freeForm, wellFormed } from "./json_limits.ts";
import { hasLineBreakers } from "../text.ts";

export const MAX_HITS = 500;
export const UA_MAX = 512;

/** One hit as validated. Lenient parts (long user agent, bad ip, port in host) are repaired by the pipeline. */
export const CrawlEvent = z.object({
  event_type: z.literal("$crawl", { error: 'must be "$crawl"' }),
  // one form per UUID, whichever path an event comes by: the dedupe key must not tell cases apart
  event_id: z.uuid({ error: "must be a UUID" }).toLowerCase(),
  timestamp: dateTime().nullable().optional(),
  host: wellFormed(z.string({ error: "must be a string" }).max(255, "must be at most 255 characters")),
  path: wellFormed(
    z.string({ error: "must be a string" }).max(1024, "must be at most 1024 characters")
      .regex(/^\//, "must start with /")
      // a request target holds none (HTTP sends them encoded); one here would print a line of its own
      .refine((s) => !hasLineBreakers(s), "must not hold control characters"),
  ),
  method: z.string({ error: "must be a string" }).regex(/^[A-Za-z]{1,10}$/, "must be 1 to 10 letters")
    .optional(),
  status: z.number({ error: "must be an integer or null" }).int("must be an integer")
    .min(100, "must be 100 to 599").max(599, "must be 100 to 599").nullable().optional(),
  user_agent: wellFormed(z.string({ error: "must be a string" }))
    .refine((s) => s.trim().length > 0, "must not be empty")
    .meta({ description: "length 1-512; longer values are truncated" }),
  // any value passes: an invalid address is dropped by the pipeline, never the hit
  ip: freeForm(z.unknown()).optional().meta({
    type: ["string", "null"],
    description: "crawler address for verification; cleared after 30 days; an invalid value is dropped",
  }),
  referer_host: wellFormed(
    z.string({ error: "must be a string or null" }).max(255, "must be at most 255 characters"),
  ).nullable().optional(),
}, { error: "must be an object" });

export type CrawlEventInput = z.infer<typeof CrawlEvent>;

/**
 * `sent_at`: the sender's clock when it sent the request, an ISO 8601 date-time with its timezone (as a hit's
 * `timestamp`). It is one per request and moves every hit in it, so a bad one refuses the request: taken
 * through Date.parse, a time without a zone was read in this server's zone and other formats were guessed at,
 * shifting every hit by the guess. Null or absent: no offset.
 */
const sentAt = () => dateTime().nullable().optional();

/**
 * The envelope. Only a missing, empty or non-array `events`, a `sent_at` that is not an ISO 8601 date-time
 * with a timezone, or a body that is not an object is a 422.
 */
export const ServerEventsEnvelope = z.object({
  events: z.array(z.unknown(), { error: "must be an array of events" }).min(1, "must hold 1 to 500 events"),
  sent_at: sentAt(),
}, { error: "must be a JSON object" });

/** The documented body, for openapi.json. */
export const ServerEventsBody = z.object({
  sdk: z.object({ name: z.string().max(40).optional(), version: z.string().max(40).optional() }).optional(),
  sent_at: sentAt().meta({
    description:
      "sender clock at send time, with its timezone; every timestamp is corrected by its offset; " +
      "one that is not an ISO 8601 date-time with a timezone refuses the request (422)",
  }),
  events: z.array(CrawlEvent).min(1).max(MAX_HITS),
});

export const ServerEventsResult = z.object({
  accepted: z.number().int().min(0),
  duplicates: z.number().int().min(0),
  rejected: z.object({
    invalid: z.number().int().min(0),
    unknown_host: z.number().int().min(0),
    not_crawler: z.number().int().min(0),
  }),
});

export type ServerEventsResultBody = z.infer<typeof ServerEventsResult>;

const toSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
const err = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

export const serverEventsPaths: Record<string, unknown> = {
  "/v1/behavior/server-events": {
    post: {
      summary: "Report crawler hits from a customer's web server. Send from a server only.",
      security: [{ serverKey: [] }],
      requestBody: {
        required: true,
        content: { "application/json": { schema: toSchema(ServerEventsBody) } },
      },
      responses: {
        "202": {
          description: "accepted; accepted + duplicates + sum(rejected) = number of events sent",
          content: { "application/json": { schema: toSchema(ServerEventsResult) } },
        },
        "401": err("server key missing, malformed or unknown; a public key; or the key's environment is off"),
        "403": err(
          "key revoked; touchpoint archived or not a website; or the request carried an Origin header",
        ),
        "413": err("more than 500 events or more than 1 MB"),
        "422": err(
          "envelope invalid: body not JSON, events missing, empty or not an array; sent_at not an ISO 8601 " +
            "date-time with a timezone; a Content-Encoding other than gzip, x-gzip or deflate, or data not valid for it",
        ),
        "429": err("key rate limit, or the address sent too many unknown keys; see Retry-After"),
        "500": err("unexpected server error"),
      },
    },
  },
};
