/**
 * A review's author out of what may be quoted (answer rule 4: no answer carries a review's author). Stores hand
 * the author's name beside the review, developer replies greet the reviewer by it ("Hi Jane Roe", "Thanks
 * Jane") and texts are sometimes signed. The name is known only while a review is being stored (only its hash
 * is kept), so lib/feedback/store.ts masks title, text and reply there, and every answer quotes stored text:
 *
 * 1. the whole name, in any letter case, as whole words (any spaces, dots, underscores or hyphens between its
 *    words, or none: "jane.roe", "JaneRoe") becomes "[author]", when it has 3 or more letters or digits;
 * 2. when the name looks like a person's name (each of its words of 2+ letters starts with a capital: "Jane
 *    Roe", "María José García", "JANE"), each of its words of 3+ letters, written with a capital initial
 *    ("Jane", "JANE"; not "jane"), becomes "[author]" too.
 *
 * Accents do not matter either way ("Maria Garcia" is masked for "María García" and the other way round): the
 * text and the name are compared with their letters' marks set aside.
 *
 * A nickname of plain words ("not happy", "A Google user") is masked only as a whole, so its words stay in
 * other sentences; a name word of one or two letters ("Al", "Li") is not masked alone. A one-word nickname
 * that is also a common word ("Great") is masked wherever the word stands: the name wins over the text.
 */
export const AUTHOR_MASK = "[author]";

// (marks too: texts are compared in NFD, where an accent follows its letter)
const START = String.raw`(?<![\p{L}\p{N}\p{M}])`;
const END = String.raw`(?![\p{L}\p{N}\p{M}])`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The letters without their marks ("María" → "Maria"). */
const bare = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "");
/** A word as a pattern matching it with or without marks on any letter (on text in NFD). */
const loose = (word: string) => [...bare(word)].map((c) => escape(c) + String.raw`\p{M}*`).join("");
/** What may join a name's words: spaces, or a handle's dots, underscores and hyphens, or nothing. */
const JOIN = String.raw`[\s._-]*`;
/** Long "names" (a pasted text in an author column) are cut: a name has a few words. */
const MAX_NAME_CHARS = 100;
const MAX_PARTS = 6;

/** A name word the quick test below covers: ASCII once its marks are set aside. */
const ASCII = /^[^\u0080-\u{10ffff}]*$/u;
/**
 * A text as the quick test compares it: its letters without their marks, in lower case, with the two letters
 * outside ASCII that match an ASCII letter under the patterns' case folding (U+017F long s, U+212A Kelvin sign;
 * every code point was tried) written as that letter.
 */
const foldedText = (text: string) => bare(text).toLowerCase().replaceAll("\u017f", "s");

/**
 * A function masking this author's name in a text; the identity when there is no name to mask.
 *
 * Each distinct name makes its own Unicode patterns, and V8 takes ~2 ms to build one (a review import of 50,000
 * authors spent most of its time here, bench/review_import.ts). So when the name's words are ASCII once their
 * marks are set aside (most names), a text is first looked at without patterns: a pattern can only match where
 * the text, its marks set aside and in lower case, holds the word itself; a text holding none of the words is
 * returned as the patterns would return it (NFC), and the patterns are built only for a text that may hold one.
 */
export function authorMasker(author: string | null | undefined): (text: string) => string {
  const name = (author ?? "").normalize("NFC").trim().slice(0, MAX_NAME_CHARS);
  if ((name.match(/[\p{L}\p{N}]/gu) ?? []).length < 3) return (t) => t;
  // the name's words split where JOIN may stand, and only words with a letter or digit: a word that JOIN
  // could match too ("a . . . ." as a name) would make the pattern backtrack exponentially on a text of dots
  const nameWords = name.split(/[\s._-]+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const words = name.match(/\p{L}+/gu) ?? [];
  const nameLike = words.some((w) => w.length >= 2) &&
    words.every((w) => w.length < 2 || /^\p{Lu}/u.test(w));
  const parts = nameLike ? [...new Set(words.filter((w) => w.length >= 3))].slice(0, MAX_PARTS) : [];
  let whole: RegExp | null = null, part: RegExp | null = null;
  const wholeOf = () => whole ??= new RegExp(START + nameWords.map(loose).join(JOIN) + END, "giu");
  const partOf = () => part ??= new RegExp(START + "(?:" + parts.map(loose).join("|") + ")" + END, "giu");
  const mask = (text: string, withWhole: boolean, withPart: boolean) => {
    let out = text.normalize("NFD");
    if (withWhole) out = out.replace(wholeOf(), AUTHOR_MASK);
    if (withPart) out = out.replace(partOf(), (m) => (/^\p{Lu}/u.test(m) ? AUTHOR_MASK : m));
    return out.normalize("NFC");
  };
  const wholeKeys = nameWords.map(bare), partKeys = parts.map(bare);
  if (![...wholeKeys, ...partKeys].every((k) => ASCII.test(k))) {
    return (text) => mask(text, true, parts.length > 0);
  }
  const lower = (ks: string[]) => ks.map((k) => k.toLowerCase());
  const [wholeLower, partLower] = [lower(wholeKeys), lower(partKeys)];
  return (text) => {
    const folded = foldedText(text);
    // every word of the name for the whole name (joined or not), any one for a part
    return mask(text, wholeLower.every((k) => folded.includes(k)), partLower.some((k) => folded.includes(k)));
  };
}
