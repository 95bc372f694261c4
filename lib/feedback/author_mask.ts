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

/** A word as other authors' names are compared: marks set aside, lower case, long s as "s". */
const ASCII_ONLY = /^[\p{ASCII}]*$/u;
const wordKey = (w: string) => (ASCII_ONLY.test(w) ? w.toLowerCase() : foldedText(w));
/** A word of a text: letters and digits, with their marks (texts are looked at in NFC). */
const TEXT_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/** What may stand between two words of a name in a text: spaces, or a handle's dots, underscores, hyphens. */
const NAME_GAP = /^[\s._-]*$/;

/**
 * A function masking the names of other authors (of the reviews stored with this one) in a text, so a review
 * that names another reviewer ("Frank Vertest here, ...") does not quote them. Only a name that looks like a
 * person's and has 2 to MAX_PARTS words, each starting with a capital ("Frank Vertest", "María José García"),
 * is looked for, as its whole run of words in any letter case and without accents ("frank vertest",
 * "frank.vertest"): a one-word name ("Sam", "Great") or a nickname of plain words ("not happy") would mask
 * ordinary words of other people's texts.
 *
 * Linear and bounded whatever the names: no pattern is built from them. The names are kept as their word keys
 * in a Set (and their first words in another); a text's words are walked once, and at a word that starts a
 * name at most MAX_PARTS runs of words are looked up, and a run
 * that begins no name ends the look. The names are held in memory only while storing.
 */
export function otherAuthorsMasker(authors: Iterable<string | null | undefined>): (text: string) => string {
  // the names, their beginnings (a run of words that begins no name ends the look), their first words
  const names = new Set<string>(), starts = new Set<string>(), firsts = new Set<string>();
  for (const a of authors) {
    const name = (a ?? "").normalize("NFC").trim().slice(0, MAX_NAME_CHARS);
    const words = name.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
    if (words.length < 2 || words.length > MAX_PARTS) continue;
    if (!words.every((w) => /^\p{Lu}/u.test(w)) || !words.some((w) => w.length >= 3)) continue;
    const keys = words.map(wordKey);
    names.add(keys.join(" "));
    for (let n = 2; n < keys.length; n++) starts.add(keys.slice(0, n).join(" "));
    firsts.add(keys[0]);
  }
  if (!names.size) return (t) => t;
  return (input) => {
    // most texts name no one: one look at the whole text, folded, before a word is folded on its own
    if (!(foldedText(input).match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => firsts.has(w))) return input;
    const text = input.normalize("NFC");
    const words = [...text.matchAll(TEXT_WORD)].map((m) => ({
      key: wordKey(m[0]),
      start: m.index!,
      end: m.index! + m[0].length,
    }));
    let out = "", at = 0;
    for (let i = 0; i < words.length; i++) {
      if (!firsts.has(words[i].key)) continue;
      let key = words[i].key, last = -1;
      for (let j = i + 1; j < words.length && j < i + MAX_PARTS; j++) {
        if (!NAME_GAP.test(text.slice(words[j - 1].end, words[j].start))) break;
        key += " " + words[j].key;
        if (names.has(key)) last = j;
        else if (!starts.has(key)) break; // the longest name starting here
      }
      if (last < 0) continue;
      out += text.slice(at, words[i].start) + AUTHOR_MASK;
      at = words[last].end;
      i = last;
    }
    return at === 0 ? text : out + text.slice(at);
  };
}
