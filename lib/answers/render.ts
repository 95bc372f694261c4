/**
 * The short text rendering of an answer that MCP results carry beside the structured JSON. Generated from
 * the JSON alone, so it can never say something the JSON does not.
 */
const label = (k: string) => k.replaceAll("_", " ");

function scalar(v: unknown): string {
  if (v === null || v === undefined) return "n/a";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function isCompared(v: unknown): v is { value: unknown; previous: unknown; change: unknown } {
  return !!v && typeof v === "object" && "value" in v && "previous" in v && "change" in v;
}

function inline(v: unknown): string {
  if (isCompared(v)) {
    const change = typeof v.change === "number"
      ? `, ${v.change >= 0 ? "+" : ""}${Math.round(v.change * 1000) / 10}%`
      : "";
    return `${scalar(v.value)} (previous ${scalar(v.previous)}${change})`;
  }
  if (Array.isArray(v)) return v.map(inline).join(", ");
  if (v && typeof v === "object") {
    return Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => `${label(k)} ${inline(x)}`).join(", ");
  }
  return scalar(v);
}

function renderScope(scope: Record<string, unknown>): string {
  const p = scope.period as Record<string, unknown> | null;
  const tp = scope.touchpoint as Record<string, unknown> | null;
  const parts = [
    p ? `${p.from_date} to ${p.to_date} (${p.name})` : null,
    String(scope.timezone),
    String(scope.environment),
    tp ? `${tp.kind} ${tp.name}` : null,
    `traffic: ${scope.traffic}`,
    scope.filter ? `filter: ${scope.filter}` : null,
  ];
  return `Scope: ${parts.filter(Boolean).join("; ")}`;
}

export function renderAnswer(tool: string, answer: Record<string, unknown>): string {
  const lines = [`${tool}`];
  if (answer.scope) lines.push(renderScope(answer.scope as Record<string, unknown>));
  for (const [k, v] of Object.entries(answer)) {
    if (k === "scope" || k === "notices" || k.endsWith("_total")) continue;
    if (Array.isArray(v) && v.some((x) => x && typeof x === "object")) {
      const total = answer[`${k}_total`];
      lines.push(`${label(k)} (${v.length}${typeof total === "number" ? ` of ${total}` : ""}):`);
      for (const item of v) lines.push(`- ${inline(item)}`);
    } else {
      lines.push(`${label(k)}: ${inline(v)}`);
    }
  }
  const notices = answer.notices as string[] | undefined;
  if (notices?.length) lines.push(`Notes: ${notices.join(" | ")}`);
  return lines.join("\n");
}
