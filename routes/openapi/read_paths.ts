/**
 * OpenAPI paths of the read API: the listing, and one path per tool with its input and output JSON Schema
 * from the registry, plus the read API's error statuses and codes.
 */
import { TOOLS } from "../../tools/registry.ts";
import { listing } from "../../pipeline/listing.ts";

const error = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  ...extra,
});

/** The statuses every read call can answer with, and the Error code each carries. */
export const READ_ERRORS = {
  "401": error("UNAUTHORIZED: no key, or the key is unknown, revoked or expired"),
  "402": error(
    "ALLOWANCE_EXHAUSTED: this month's API requests are used; the message names the reset date and how to raise it",
  ),
  "403": error("FORBIDDEN: the organization's plan is not active, or the plan has no API access"),
  "429": error("RATE_LIMIT_EXCEEDED: more than 60 calls a minute with this key; wait for Retry-After", {
    headers: { "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "seconds to wait" } },
  }),
  "500": error("OPERATION_FAILED: unexpected server error"),
};

const toolPaths = () =>
  Object.fromEntries(TOOLS.map((tool) => {
    const l = listing(tool);
    return [`/v1/read/${l.name}`, {
      post: {
        summary: l.description.split(". ")[0],
        description: l.description,
        operationId: l.name,
        tags: ["read"],
        security: [{ readKey: [] }],
        requestBody: { required: false, content: { "application/json": { schema: l.input_schema } } },
        responses: {
          "200": { description: "the answer", content: { "application/json": { schema: l.output_schema } } },
          ...READ_ERRORS,
          "404": error("NOT_FOUND: no such tool for the organization"),
          "413": error("VALIDATION_ERROR: a body over 64 KB (refused before it is read whole)"),
          "422": error(
            "VALIDATION_ERROR: invalid input, or a question the tool cannot answer as asked; says what to change",
          ),
        },
      },
    }];
  }));

export const readPaths: Record<string, unknown> = {
  "/v1/read": {
    get: {
      summary: "The tools this key can run, each with its input and output JSON Schema",
      tags: ["read"],
      security: [{ readKey: [] }],
      responses: {
        "200": {
          description: "`{tools: [{name, description, input_schema, output_schema}]}`",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["tools"],
                properties: {
                  tools: {
                    type: "array",
                    items: {
                      type: "object",
                      required: ["name", "description", "input_schema", "output_schema"],
                      properties: {
                        name: { type: "string" },
                        description: { type: "string" },
                        input_schema: { type: "object" },
                        output_schema: { type: "object" },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        ...READ_ERRORS,
      },
    },
  },
  ...toolPaths(),
};
