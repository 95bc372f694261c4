/**
 * The params of the MCP requests this server answers, checked before the transport. The SDK checks them
 * too, but under the 2025 revisions a failure comes back as -32603 "Internal error" carrying a raw schema
 * dump, which tells a client to retry what can never succeed. Here a wrong shape is -32602 Invalid params,
 * with a message that names the field and what it must be (never the value sent).
 */

type Params = Record<string, unknown>;

const isObject = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);

/** Per method, what is wrong with its params (a Map: a method named "constructor" finds nothing). */
const CHECKS = new Map<string, (p: Params) => string | null>(Object.entries({
  "tools/call": (p: Params) =>
    typeof p.name !== "string"
      ? "params.name must be a tool's name (a string)"
      : p.arguments !== undefined && !isObject(p.arguments)
      ? "params.arguments must be an object of the tool's arguments"
      : null,
  "resources/read": (p: Params) =>
    typeof p.uri !== "string"
      ? "params.uri must be a resource's URI (a string), as resources/list gives"
      : null,
  "prompts/get": (p: Params) => {
    if (typeof p.name !== "string") return "params.name must be a prompt's name (a string)";
    if (p.arguments === undefined) return null;
    if (!isObject(p.arguments)) return "params.arguments must be an object of strings";
    const bad = Object.keys(p.arguments).find((k) => typeof (p.arguments as Params)[k] !== "string");
    return bad === undefined ? null : `params.arguments.${bad.slice(0, 40).toWellFormed()} must be a string`;
  },
}));

/** What is wrong with a request's params, or null when the SDK may take it. */
function paramsProblem(method: string, params: unknown): string | null {
  const check = CHECKS.get(method);
  if (!check) return null;
  if (!isObject(params)) return `${method} needs params, an object`;
  return check(params);
}

/** A -32602 answer for one JSON-RPC request whose params do not fit, or null to go on to the transport. */
export function refusedParams(body: string): Response | null {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return null; // the transport answers a parse error
  }
  if (!isObject(message) || typeof message.method !== "string" || !("id" in message)) return null;
  const problem = paramsProblem(message.method, message.params);
  if (!problem) return null;
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: { code: -32602, message: `Invalid params for ${message.method}: ${problem}` },
  });
}
