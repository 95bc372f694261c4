/**
 * The literal names inside a parser's regex source (ua-parser-js's browser rules, uap-core's families, bowser's
 * tests), shared by scripts/build_catalog.ts, scripts/extract_human_names.ts and scripts/extract_extra_names.ts.
 */

/** The literal names inside a regex's source: alternatives split, escapes and classes removed. */
export function regexWords(literal: string): string[] {
  const body = literal.slice(1, literal.lastIndexOf("/"));
  const cleaned = body
    .replace(/\\[bdwsDWS]/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\(\?[:=!<]+/g, "(")
    .replace(/\\(.)/g, "$1")
    .replace(/[{][^}]*[}]/g, " ");
  const words: string[] = [];
  for (const part of cleaned.split(/[|()?*+^$/.,;:]+/)) {
    const w = part.trim().toLowerCase();
    if (/^[a-z][a-z0-9 _-]{2,}$/.test(w) && !HUMAN_WORD_STOP.has(w)) words.push(w);
  }
  return words;
}

/** Pattern fragments that are parts of every agent, not product names. */
const HUMAN_WORD_STOP = new Set([
  ...["like", "like gecko", "gecko", "mobile", "mobile vr", "version", "webkit", "khtml", "mozilla", "rv"],
  // pieces of names the rules spell in parts ("slim(?:browser|boat|jet)", "kakao(?:talk|story)")
  ...[
    "and",
    "app_",
    "apps",
    "boat",
    "client",
    "comodo_",
    "droid",
    "ekiohf",
    "iab",
    "ice",
    "jet",
    "juc",
    "microm",
  ],
  ...[
    "ome",
    "opt",
    "qihu",
    "saf",
    "search",
    "slim",
    "story",
    "talk",
    "uhd",
    "flow",
    "focus",
    "coast",
    "iron",
  ],
]);

/** A regex group's top-level alternatives ("a|b(?:c|d)|e" → a, b(?:c|d), e). */
export function splitAlternatives(group: string): string[] {
  const out: string[] = [];
  let depth = 0, cur = "";
  for (let i = 0; i < group.length; i++) {
    const c = group[i];
    if (c === "\\") {
      cur += c + (group[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (c === "|" && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}
