/**
 * Words of a review, normalized so that inflected forms meet: "crashed", "crashes" and "crashing" all
 * become "crash". A small irregular-form table plus conservative suffix rules (no dictionary): the same
 * function normalizes the taxonomy's terms, so both sides always agree.
 */
import { own } from "./own.ts";

// Comparatives stay themselves ("better app" is not "good app"; "could be better" is no praise).
const IRREGULAR: Record<string, string> = {
  was: "be",
  were: "be",
  is: "be",
  are: "be",
  am: "be",
  been: "be",
  went: "go",
  gone: "go",
  froze: "freez",
  frozen: "freez",
  paid: "pay",
  bought: "buy",
  lost: "lose",
  kept: "keep",
  ran: "run",
  took: "take",
  taken: "take",
  got: "get",
  gotten: "get",
  made: "make",
  said: "say",
  gave: "give",
  given: "give",
  did: "do",
  does: "do",
  done: "do",
  has: "have",
  had: "have",
  children: "child",
  data: "data",
  ads: "ad",
  ios: "ios",
  news: "news",
  logged: "log",
  logging: "log",
  signed: "sign",
  signing: "sign",
  app: "app",
  apps: "app",
  this: "this",
  its: "it",
  his: "he",
  us: "we",
  less: "less",
  bus: "bus",
  plus: "plus",
  always: "always",
  update: "updat",
  anyway: "anyway",
  pleased: "pleased", // not "please"
  fixed: "fixed", // a fix done is no plea to fix ("fixed it" is not "fix it")
  fixes: "fixes",
  added: "add", // not "ad"
  adding: "add",
};

const DOUBLED = /([bdfgkmnprt])\1$/;

/** The normalized form of one lower-case word. */
export function lemma(word: string): string {
  const irregular = own(IRREGULAR, word);
  if (irregular) return irregular;
  let w = word.endsWith("'s") ? word.slice(0, -2) : word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("ied") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(sh|ch|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

function undouble(stem: string): string {
  return DOUBLED.test(stem) ? stem.slice(0, -1) : stem;
}

/** Lower case, curly quotes straightened, "n't" spelled as " not" so negation is one word everywhere. */
export function normalizeText(text: string): string {
  return text.toLowerCase()
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/\bcan't\b|\bcannot\b/g, "can not")
    .replace(/\bwon't\b/g, "will not")
    .replace(/\bain't\b/g, "is not")
    .replace(/n't\b/g, " not")
    .replace(/\b(dont|doesnt|didnt|isnt|wasnt|wont|cant|couldnt|wouldnt|shouldnt|arent|havent)\b/g, (m) =>
      ({
        dont: "do not",
        doesnt: "does not",
        didnt: "did not",
        isnt: "is not",
        wasnt: "was not",
        wont: "will not",
        cant: "can not",
        couldnt: "could not",
        wouldnt: "would not",
        shouldnt: "should not",
        arent: "are not",
        havent: "have not",
      })[m] ?? m);
}

/** Words in order (lower case, letters and inner apostrophes; numbers dropped). */
export function words(text: string): string[] {
  return normalizeText(text).match(/[a-z\u00c0-\u024f]+(?:'[a-z]+)?/g) ?? [];
}

export const STOPWORDS = new Set(
  ("a an the and or but if then so of to in on at by for with from about into over after before up down " +
    "out off again once here there when where why how all any both each few more most other some such no " +
    "nor not only own same than too very can will just should now i me my myself we our you your he him " +
    "she her it its they them their what which who whom this that these those be have do would could " +
    "also get go even still really much many one make let like use thing lot way time because while as " +
    "been being having doing am is are was were s t im ive id its it's i'm i've i'd you're they're").split(
      " ",
    ),
);
