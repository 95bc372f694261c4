import type { z } from "zod";

/** "batch[3].event_id" from ["batch", 3, "event_id"]; `root` names an empty path. */
export function formatPath(path: readonly PropertyKey[], root = "body"): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += (out ? "." : "") + String(p);
  }
  return out || root;
}

/**
 * One line naming the offending path(s): "batch[3].event_id: must be a UUID". At most three issues.
 * `root` names the whole value: "body" for a request body, "input" for a tool's input.
 */
export function describeZodError(error: z.ZodError, root = "body"): string {
  const parts = error.issues.slice(0, 3).map((i) => {
    const path = formatPath(i.path, root);
    if (i.code === "unrecognized_keys") {
      return `${path}: unknown field${i.keys.length > 1 ? "s" : ""} ${
        i.keys.map((k) => `"${k}"`).join(", ")
      }`;
    }
    return `${path}: ${i.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : "";
  return (parts.join("; ") + more).toWellFormed(); // a quoted key may hold a lone surrogate
}
