/**
 * Names asked about that were never received: an event name or a page path with a typo answers zeros, which
 * read as "nobody did it". The pipeline (pipeline/notices.ts) asks the engine, only when an answer holds no
 * figure above 0, which names the period did receive, and says so with the close ones found here.
 */

/** Any count or figure above 0 (or a withheld "fewer than 5") outside the scope and notices. */
export function holdsFigures(v: unknown, key = ""): boolean {
  if (key === "scope" || key === "notices" || key === "offset" || key.endsWith("_total")) return false;
  if (typeof v === "number") return v > 0;
  if (v === "fewer than 5") return true;
  if (Array.isArray(v)) return v.some((x) => holdsFigures(x));
  if (v && typeof v === "object") return Object.entries(v).some(([k, x]) => holdsFigures(x, k));
  return false;
}

/** Edit distance, stopping early above `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let low = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      low = Math.min(low, cur[j]);
    }
    if (low > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** What a name reads as, spelling aside: lower case, "-", " " and "_" alike, no trailing slash. */
const folded = (s: string) => s.toLowerCase().replace(/[-\s_]+/g, "_").replace(/(?<=.)\/+$/, "");

/**
 * Up to 3 received names close to the asked one: the same but for case, separators or a trailing slash, then
 * those a few edits away (1 for names up to 5 characters, 2 above), nearest first.
 */
export function closeNames(asked: string, received: readonly string[]): string[] {
  const a = folded(asked);
  const max = a.length <= 5 ? 1 : 2;
  return received
    .filter((n) => n !== asked)
    .map((n) => ({ n, d: folded(n) === a ? 0 : distance(folded(n), a, max) }))
    .filter((x) => x.d <= max)
    .sort((x, y) => x.d - y.d || x.n.localeCompare(y.n))
    .slice(0, 3)
    .map((x) => x.n);
}

/** A page path's spellings that could be the one meant: with and without a trailing slash, in lower case. */
export function pageVariants(path: string): string[] {
  const bare = path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
  const out = new Set([path, bare, bare === "/" ? "/" : `${bare}/`]);
  for (const p of [...out]) out.add(p.toLowerCase());
  return [...out];
}

/** The notice: what was asked, that the period did not receive it, and the close names when any. */
export function unknownNameNotice(
  kind: "event" | "page",
  asked: string,
  env: string,
  period: { from_date: string; to_date: string },
  close: readonly string[],
): string {
  const near = close.length ? `; did you mean ${close.map((n) => `"${n}"`).join(" or ")}?` : "";
  return `no ${kind} "${asked}" was received in ${env} in this period (${period.from_date} to ${period.to_date})${near}`;
}
