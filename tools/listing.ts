/** A tool as listed to callers (GET /v1/read, MCP tools/list, openapi.json): its JSON Schemas. */
import { z } from "zod";
import type { Tool } from "./tool.ts";

export interface ToolListing {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

const listings = new WeakMap<Tool, ToolListing>();
const schemaOf = (s: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;

/** JSON Schema of the tool's input and output, built once from its zod schemas. */
export function listing(tool: Tool): ToolListing {
  let l = listings.get(tool);
  if (!l) {
    l = {
      name: tool.name,
      description: tool.description,
      input_schema: schemaOf(tool.input, "input"),
      output_schema: schemaOf(tool.output, "output"),
    };
    listings.set(tool, l);
  }
  return l;
}
