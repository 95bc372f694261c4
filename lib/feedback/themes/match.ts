/** Which taxonomy topics a review is about, and its key phrases (candidates for emergent themes). */
import { lemma, STOPWORDS } from "../analysis/tokens.ts";
import { TOPIC_WORDS, TOPICS } from "./taxonomy.ts";

/** Topic ids whose words or phrases occur among the review's normalized words. */
export function topicsOf(lemmas: string[]): string[] {
  const set = new Set(lemmas);
  const out: string[] = [];
  for (const t of TOPICS) {
    let hit = false;
    for (const w of t.words) {
      if (set.has(w)) {
        hit = true;
        break;
      }
    }
    if (!hit) {
      hit = t.phrases.some((p) => {
        for (let i = 0; i + p.length <= lemmas.length; i++) {
          if (p.every((w, k) => lemmas[i + k] === w)) return true;
        }
        return false;
      });
    }
    if (hit) out.push(t.id);
  }
  return out;
}

/**
 * Words that say how someone feels or what they did, not what about: a phrase made of them is no theme
 * ("great app", "really love").
 */
const GENERIC = new Set(
  ("app application great good love nice best awesome amazing excellent perfect use using used work works " +
    "working star stars thank thanks please pls plz fix update updat version phone device android iphone ipad " +
    "year month day week time new old first last ever every well easy bad terrible worst keep need want try " +
    "think know see say look give take come find feel start stop put download install instal recommend " +
    "everything something anything nothing lot far back sure right wrong little big much many help").split(
      " ",
    )
    .flatMap((w) => [w, lemma(w)]),
);

const MAX_PHRASES = 6;

/**
 * Key phrases: runs of two content words in a sentence (no stopword, number or generic word between),
 * deduplicated; the phrases that use a topic's word are left out, since the taxonomy already covers them.
 */
export function keyPhrases(sentenceLemmas: string[][]): string[] {
  const out = new Set<string>();
  for (const s of sentenceLemmas) {
    for (let i = 0; i + 1 < s.length && out.size < MAX_PHRASES; i++) {
      const a = s[i], b = s[i + 1];
      if (!content(a) || !content(b) || a === b) continue;
      if (TOPIC_WORDS.has(a) || TOPIC_WORDS.has(b)) continue;
      out.add(`${a} ${b}`);
    }
  }
  return [...out];
}

const content = (w: string) => w.length > 2 && !STOPWORDS.has(w) && !GENERIC.has(w) && !/\d/.test(w);
