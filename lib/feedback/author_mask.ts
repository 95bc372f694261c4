/**
 * A review's author out of what may be quoted (answer rule 4: no answer carries a review's author). Stores hand
 * the author's name beside the review, developer replies greet the reviewer by it ("Hi Jane Roe", "Thanks
 * Jane") and texts are sometimes signed. The name is known only while a review is being stored (only its hash
 * is kept), so lib/feedback/store.ts masks title, text and reply there, and every answer quotes stored text:
 *
 * 1. the whole name, in any letter case, as whole words (any spaces between its words) becomes "[author]",
 *    when it has 3 or more letters or digits;
 * 2. when the name looks like a person's name (each of its words of 2+ letters starts with a capital: "Jane
 *    Roe", "María José García", "JANE"), each of its words of 3+ letters, written with a capital initial
 *    ("Jane", "JANE"; not "jane"), becomes "[author]" too.
 *
 * A nickname of plain words ("not happy", "A Google user") is masked only as a whole, so its words stay in
 * other sentences; a name word of one or two letters ("Al", "Li") is not masked alone. A one-word nickname
 * that is also a common word ("Great") is masked wherever the word stands: the name wins over the text.
 */
export const AUTHOR_MASK = "[author]";

const START = String.raw`(?<![\p{L}\p{N}])`;
const END = String.raw`(?![\p{L}\p{N}])`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Long "names" (a pasted text in an author column) are cut: a name has a few words. */
const MAX_NAME_CHARS = 100;
const MAX_PARTS = 6;

/** A function masking this author's name in a text; the identity when there is no name to mask. */
export function authorMasker(author: string | null | undefined): (text: string) => string {
  const name = (author ?? "").normalize("NFC").trim().slice(0, MAX_NAME_CHARS);
  if ((name.match(/[\p{L}\p{N}]/gu) ?? []).length < 3) return (t) => t;
  const whole = new RegExp(START + name.split(/\s+/).map(escape).join(String.raw`\s+`) + END, "giu");
  const words = name.match(/\p{L}+/gu) ?? [];
  const nameLike = words.some((w) => w.length >= 2) &&
    words.every((w) => w.length < 2 || /^\p{Lu}/u.test(w));
  const parts = nameLike ? [...new Set(words.filter((w) => w.length >= 3))].slice(0, MAX_PARTS) : [];
  const part = parts.length
    ? new RegExp(START + "(?:" + parts.map(escape).join("|") + ")" + END, "giu")
    : null;
  return (text) => {
    const out = text.replace(whole, AUTHOR_MASK);
    return part ? out.replace(part, (m) => (/^\p{Lu}/u.test(m) ? AUTHOR_MASK : m)) : out;
  };
}
