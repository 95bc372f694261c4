/**
 * Reads the prefixes out of any published IP list. Vendors use several shapes (Google-style
 * `{prefixes:[{ipv4Prefix}]}`, Fastly `{addresses:[]}`, AWS `{prefixes:[{ip_prefix, service}]}`, plain text
 * one per line, an HTML page): every string that parses as an address or CIDR is taken, so one reader covers
 * them all.
 */
import { parseCidr } from "../cidr.ts";

const TOKEN = /[0-9a-fA-F:.]+(?:\/\d{1,3})?/g;

function walk(value: unknown, service: string | undefined, out: string[]): void {
  if (typeof value === "string") {
    if (value.length <= 50 && parseCidr(value)) out.push(value.trim());
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) walk(v, service, out);
    return;
  }
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    // AWS: every prefix object names its service; keep only the wanted one
    if (service && typeof obj.service === "string" && obj.service !== service) return;
    for (const v of Object.values(obj)) walk(v, service, out);
  }
}

/** All prefixes found in a list body; an empty result means the body was not a list. */
export function extractPrefixes(body: string, service?: string): string[] {
  const out: string[] = [];
  const trimmed = body.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      walk(JSON.parse(body), service, out);
      return [...new Set(out)];
    } catch {
      // not JSON after all: scan as text
    }
  }
  for (const m of body.matchAll(TOKEN)) {
    const t = m[0];
    if ((t.includes(".") || t.includes(":")) && t.length >= 3 && parseCidr(t)) out.push(t);
  }
  return [...new Set(out)];
}
