/**
 * The sentiment lexicon of app reviews, written for this service: general opinion words plus what signals
 * trouble in a review (a crash, an update that broke something, a refund). Valence -4..4. General-purpose
 * lexicons miss most negative reviews because complaints are often phrased without an opinion word ("since
 * the update I can't log in"); the problem words and phrases below carry those.
 */

const POSITIVE: Record<number, string> = {
  4: "excellent outstanding perfect amazing awesome fantastic brilliant superb wonderful flawless " +
    "lifesaver phenomenal incredible exceptional",
  3: "love great best fabulous terrific gorgeous marvelous beautiful delightful impressive " +
    "loved loving lovely favorite favourite recommend recommended",
  2: "good nice cool fun helpful useful easy enjoy enjoyable handy convenient reliable smooth intuitive " +
    "simple clean fast happy glad thank thanks appreciate satisfied solid effective " +
    "addictive addicting entertaining neat stable quick powerful essential worth wow yay " +
    "accurate friendly elegant polished responsive super sweet",
  1: "decent improve improved improvement like liked pretty fair better interesting relaxing calm clear " +
    "lightweight job exactly especially overall simply functional variety properly challenging five " +
    "wish suggestion feel little small",
};

const NEGATIVE: Record<number, string> = {
  4: "worst horrible terrible awful garbage trash useless pathetic scam disgusting unusable " +
    "atrocious",
  3: "hate hated crap junk waste ridiculous disappointing disappointed broken fail fails failed failing " +
    "poor bad sucks suck annoying frustrating frustrated rubbish unacceptable stupid pointless " +
    "worthless dreadful lame uninstall uninstalled uninstalling deleted delete refund",
  2: "crash crashes crashed crashing crashy bug bugs buggy glitch glitches glitchy error errors freeze " +
    "freezes freezing froze frozen lag laggy lags slow sluggish problem problems issue issues wrong " +
    "unstable unreliable confusing clunky hard difficult missing lost lose loses losing drain drains " +
    "draining spam spammy intrusive invasive forced force expensive overpriced greedy ripoff misleading " +
    "fake sad angry upset corrupt corrupted distorted pixelated pixellated scrambled hang hangs hanging " +
    "stinks stink defective outdated messed dumb blurry unresponsive unplayable inaccurate jacked " +
    "abandoned ruined ruin annoyed disabled laggy failure irritating unhappy complaint complain stuck shame disappoint worse mess " +
    "wtf ugh stopped stops",
  1: "anymore why half fix meh hmm however unfortunately sadly weird strange odd limited lacking lacks removed " +
    "downgrade nope",
};

/** Multi-word cues (normalized words joined by spaces); they win over their single words. */
export const PHRASES: Record<string, number> = {
  "not work": -3,
  "not working": -3,
  "stop work": -3,
  "stopped working": -3,
  "keep crash": -3,
  "keeps crashing": -3,
  "force close": -3,
  "waste of time": -4,
  "waste of money": -4,
  "please fix": -2,
  "fix it": -1.5,
  "fix this": -1.5,
  "not open": -2.5,
  "not load": -2.5,
  "not let": -2,
  "black screen": -3,
  "white screen": -3,
  "one star": -3,
  "1 star": -3,
  "zero star": -4,
  "0 star": -4,
  "give up": -2,
  "too many ad": -3,
  "what happened": -2,
  "not worth": -3,
  "out of memory": -2.5,
  "low memory": -2,
  "when it works": -2.5,
  "if it works": -2,
  "used to work": -3,
  "no longer work": -3,
  "use to work": -3,
  "need work": -2,
  "needs work": -2,
  "other app": -1.5,
  "another app": -1.5,
  "better app": -1.5,
  "other reader": -1.5,
  "look elsewhere": -3,
  "switch to": -1.5,
  "not support": -2,
  "not supported": -2,
  "unable to": -2,
  "has stopped": -2.5,
  "keep stop": -2.5,
  "not responding": -2.5,
  "low quality": -2.5,
  "poor quality": -3,
  "no option": -1,
  "not able": -2,
  "not good": -2.5,
  "not great": -2,
  "not happy": -2.5,
  "not bad": 1.5,
  "not a problem": 1.5,
  "no problem": 1.5,
  "no issue": 1.5,
  "no ad": 1,
  "works great": 3,
  "works well": 2.5,
  "works fine": 2,
  "work great": 3,
  "work well": 2.5,
  "works perfectly": 3,
  "love it": 3,
  "love this": 3,
  "must have": 3,
  "highly recommend": 3.5,
  "five star": 3,
  "5 star": 3,
  "thank you": 2,
  "keep up": 2,
  "well done": 3,
  "does the job": 2,
  "do the job": 2,
  "easy to use": 3,
  "can not live without": 3,
  "can not wait": 1,
  "can not believe": -1,
  "can not complain": 2,
  "could not be happier": 3,
  "does what it": 2,
  "exactly what i": 2,
  "long time": 0,
};

export const NEGATORS = new Set([
  "not",
  "no",
  "never",
  "none",
  "nobody",
  "nothing",
  "neither",
  "nor",
  "without",
  "hardly",
  "rarely",
]);

/**
 * Word pairs that negate like "not" ("no longer crashes" is praise, "used to love it" a complaint), and
 * that say something was lost when they negate no opinion word ("no longer syncs"): that loss's valence.
 */
export const NEGATOR_PHRASES: Record<string, number> = {
  "no longer": -2,
  "used to": -1.5,
  "not anymore": -1.5,
};
/** "used to" after these is "accustomed to" ("once you get used to it"), no negation. */
export const ACCUSTOMED = new Set([
  "get",
  "got",
  "getting",
  "gets",
  "be",
  "am",
  "is",
  "are",
  "was",
  "were",
  "been",
  "i'm",
]);

export const INTENSIFIERS: Record<string, number> = {
  very: 1.3,
  really: 1.3,
  so: 1.2,
  extremely: 1.5,
  super: 1.3,
  totally: 1.3,
  absolutely: 1.4,
  completely: 1.4,
  incredibly: 1.4,
  too: 1.2,
  most: 1.2,
  quite: 1.1,
  highly: 1.3,
  constantly: 1.4,
  always: 1.1,
  keeps: 1.2,
  slightly: 0.6,
  little: 0.7,
  bit: 0.7,
  somewhat: 0.7,
  kinda: 0.7,
};

/** Builds word → valence, normalized by `norm` so the lexicon meets the review's normalized words. */
export function buildLexicon(
  norm: (w: string) => string,
  positive: Record<number, string> = POSITIVE,
  negative: Record<number, string> = NEGATIVE,
): Map<string, number> {
  const out = new Map<string, number>();
  const add = (table: Record<number, string>, sign: number) => {
    for (const [v, list] of Object.entries(table)) {
      for (const w of list.split(/\s+/)) {
        if (!w || w.includes("?") || w.includes(" ")) continue;
        out.set(norm(w), sign * Number(v));
      }
    }
  };
  add(positive, 1);
  add(negative, -1);
  return out;
}
