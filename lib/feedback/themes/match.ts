/** Which taxonomy topics a review is about, and its key phrases (candidates for emergent themes). */
import { lemma, STOPWORDS } from "../analysis/tokens.ts";
import { TOPIC_EXACT, TOPIC_WORDS, TOPICS } from "./taxonomy.ts";

/**
 * Topic ids whose words or phrases occur among the review's normalized words (`lemmas`); a topic's exact-form
 * words are looked up among the words as written (`written`, lower case), when given.
 */
export function topicsOf(lemmas: string[], written: string[] = []): string[] {
  const set = new Set(lemmas);
  const raw = new Set(written);
  const out: string[] = [];
  for (const t of TOPICS) {
    let hit = false;
    for (const w of t.words) {
      if (set.has(w)) {
        hit = true;
        break;
      }
    }
    if (!hit) { for (const w of t.exact) if (raw.has(w)) hit = true; }
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
 * Words that join or place other words, left out of the general stopwords because the rules read them: a
 * phrase that holds one ("checkout since", "really wish") names nothing.
 */
const FUNCTION_WORDS = new Set(
  ("since until till via per within without against among through during ago yet already always never " +
    "anymore though although whether unless otherwise else instead besides etc okay ok yes yeah wow lol " +
    "omg pls really actually literally basically totally definitely probably maybe also quite pretty " +
    "super extremely highly absolutely completely constantly sometimes often usually every everyday " +
    "today yesterday tomorrow tonight recently finally suddenly anyway anyone someone everyone nobody " +
    "could would should might must shall wish wished hope able unable getting got gets went gone made").split(
      " ",
    ),
);

/**
 * Key phrases: runs of two content words in a sentence (no stopword, number or generic word between), as
 * the review wrote them (lower case: "ruins browsing", never the stems "ruin brows"), deduplicated; the
 * phrases that use a topic's word are left out, since the taxonomy already covers them. `sentenceWords` are
 * the words of each sentence of a text already rid of personal details (analysis/personal.ts).
 */
export function keyPhrases(sentenceWords: string[][]): string[] {
  const out = new Set<string>();
  for (const s of sentenceWords) {
    const lemmas = s.map(lemma);
    for (let i = 0; i + 1 < s.length && out.size < MAX_PHRASES; i++) {
      const a = lemmas[i], b = lemmas[i + 1];
      if (!content(s[i], a) || !content(s[i + 1], b) || a === b) continue;
      if (TOPIC_WORDS.has(a) || TOPIC_WORDS.has(b) || TOPIC_EXACT.has(s[i]) || TOPIC_EXACT.has(s[i + 1])) {
        continue;
      }
      out.add(`${s[i]} ${s[i + 1]}`);
    }
  }
  return [...out];
}

/** The key that phrases meaning the same share ("ruins browsing", "ruined browsing"): their words' lemmas. */
export const phraseKey = (phrase: string) => phrase.split(" ").map(lemma).join(" ");

const content = (word: string, l: string) =>
  l.length > 2 && !/'/.test(word) && !STOPWORDS.has(word) && !STOPWORDS.has(l) && !GENERIC.has(l) &&
  !FUNCTION_WORDS.has(word) && !/\d/.test(word);
