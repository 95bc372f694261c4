/** The OpenAPI 3.1 document. Paths come from each interface's schema module; bodies are zod → JSON Schema. */
import { z } from "zod";
import { IngestBody } from "../../lib/schemas/events.ts";
import {
  CreateKey,
  CreateOrg,
  CreateTouchpoint,
  PatchOrg,
  PatchTouchpoint,
} from "../../lib/schemas/admin.ts";
import { serverEventsPaths } from "../../lib/schemas/server_events.ts";
import { readPaths } from "./read_paths.ts";
import { CreateInvitation } from "../../lib/schemas/people.ts";

export const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });

export const ErrorSchema = {
  type: "object",
  required: ["error", "code", "timestamp"],
  properties: {
    error: { type: "string", description: "human-readable message" },
    code: {
      type: "string",
      enum: [
        "UNAUTHORIZED",
        "FORBIDDEN",
        "NOT_FOUND",
        "VALIDATION_ERROR",
        "RATE_LIMIT_EXCEEDED",
        "ALLOWANCE_EXHAUSTED",
        "OPERATION_FAILED",
      ],
    },
    timestamp: { type: "string", format: "date-time" },
  },
};

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const jsonBody = (s: z.ZodType) => ({
  required: true,
  content: { "application/json": { schema: jsonSchema(s) } },
});
const admin = (summary: string, body?: z.ZodType, ok = "200") => ({
  summary,
  security: [{ admin: [] }],
  ...(body ? { requestBody: jsonBody(body) } : {}),
  responses: {
    [ok]: { description: "done" },
    "401": errorResponse("missing or wrong admin token"),
    "404": errorResponse("unknown id"),
    "422": errorResponse("invalid body; the message names the field"),
  },
});

export function buildOpenApi() {
  return {
    openapi: "3.1.0",
    info: { title: "Behavior ingest and read service", version: "1.0.0" },
    components: {
      schemas: { Error: ErrorSchema },
      securitySchemes: {
        admin: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN" },
        serverKey: { type: "http", scheme: "bearer", description: "server key svc_sk_…" },
        readKey: { type: "http", scheme: "bearer", description: "read key svc_rk_…" },
      },
    },
    paths: {
      "/healthz": {
        get: { summary: "liveness and KV reachability", responses: { "200": { description: "ok" } } },
      },
      "/v1/behavior/events": {
        post: {
          summary: "Ingest a batch of behavioral events (web SDK). application/json or text/plain bodies.",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: jsonSchema(IngestBody) },
              "text/plain": { schema: jsonSchema(IngestBody) },
            },
          },
          responses: {
            "204": { description: "batch accepted; event_ids already seen are de-duplicated" },
            "401": errorResponse(
              "api_key unknown, or its organization, touchpoint or environment inactive; or a first-party " +
                "proxy's X-Forwarded-Key is not a server key",
            ),
            "403": errorResponse(
              "Origin not allowed for the key's environment; or X-Forwarded-Key is another touchpoint's or " +
                "environment's server key",
            ),
            "413": errorResponse("body over 1 MB"),
            "422": errorResponse(
              "body fails validation; message names the offending path. Also a body sent with a " +
                "Content-Encoding (send it uncompressed), and X-Forwarded-Key without a readable X-Visitor-Address",
            ),
            "429": errorResponse("per-minute limit of the key spent; see Retry-After"),
            "500": errorResponse("unexpected server error"),
          },
        },
        options: {
          summary: "CORS preflight",
          responses: { "204": { description: "allowed" }, "403": errorResponse("origin not allowed") },
        },
      },
      ...serverEventsPaths,
      ...readPaths,
      "/admin/v1/orgs": { post: admin("create an organization", CreateOrg, "201") },
      "/admin/v1/orgs/{org}": {
        get: admin("read an organization"),
        patch: admin("change plan, timezone or active", PatchOrg),
      },
      "/admin/v1/orgs/{org}/touchpoints": {
        get: admin("list touchpoints"),
        post: admin("create a touchpoint", CreateTouchpoint, "201"),
      },
      "/admin/v1/orgs/{org}/touchpoints/{tp}": {
        patch: admin("archive, rename, change environments", PatchTouchpoint),
      },
      "/admin/v1/orgs/{org}/keys": {
        get: admin("list keys (no secrets)"),
        post: admin("create a key", CreateKey, "201"),
      },
      "/admin/v1/orgs/{org}/keys/{id}": { delete: admin("revoke a key", undefined, "204") },
      "/admin/v1/orgs/{org}/invitations": {
        post: admin(
          "invite someone (the first owner): answers and mails a single-use link",
          CreateInvitation,
          "201",
        ),
      },
      "/admin/v1/orgs/{org}/members": { get: admin("list members and pending invitations (no links)") },
    },
  };
}
