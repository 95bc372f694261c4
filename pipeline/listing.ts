/** A tool as listed to callers (GET /v1/read, MCP tools/list, openapi.json): its JSON Schemas. */
import { z } from "zod";
import type { Tool } from "../toolkit/tool.ts";
import { guardedOutputSchema } from "../lib/answers/small_groups.ts";
import { markGroupCounts } from "../lib/answers/group_counts.ts";
import { portableSchema } from "../lib/answers/portable_schema.ts";

export interface ToolListing {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

const listings = new WeakMap<Tool, ToolListing>();
const schemaOf = (s: z.ZodType, io: "input" | "output", marked = false) =>
  z.toJSONSchema(s, {
    io,
    unrepresentable: "any",
    ...(marked ? { override: markGroupCounts } : {}),
  }) as Record<
    string,
    unknown
  >;

/** JSON Schema of the tool's input and output, built once from its zod schemas. */
export function listing(tool: Tool): ToolListing {
  let l = listings.get(tool);
  if (!l) {
    const input = schemaOf(tool.input, "input");
    // under a saved cohort, the counts the schema declares of a group may read "fewer than 5"
    // (lib/answers/small_groups.ts)
    const underCohort = !!(input.properties as Record<string, unknown> | undefined)?.cohort;
    const output = schemaOf(tool.output, "output", underCohort);
    l = {
      name: tool.name,
      description: tool.description,
      // every face publishes the same portable forms (anyOf, not type arrays), so clients that check
      // schemas accept them
      input_schema: portableSchema(input),
      output_schema: portableSchema(underCohort ? guardedOutputSchema(output) : output),
    };
    listings.set(tool, l);
  }
  return l;
}

const withOrganization = new WeakMap<Tool, ToolListing>();

/**
 * The listing a connection acting for a person sees: the same, with an `organization` input (its id or name),
 * which the pipeline takes off before the tool's own input is checked.
 */
export function personListing(tool: Tool, organization: { name: string; description: string }): ToolListing {
  let l = withOrganization.get(tool);
  if (!l) {
    const base = listing(tool);
    const input = base.input_schema as { properties?: Record<string, unknown> };
    l = {
      ...base,
      input_schema: {
        ...base.input_schema,
        properties: {
          [organization.name]: { type: "string", minLength: 1, description: organization.description },
          ...input.properties,
        },
      },
    };
    withOrganization.set(tool, l);
  }
  return l;
}
