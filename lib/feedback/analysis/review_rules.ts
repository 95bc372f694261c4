/**
 * Rules of sentiment.ts that read the whole review rather than a word in its clause: irony, a price that
 * rose, a "but" with nothing after it, and a habit of use told without an opinion.
 */

/**
 * Mock praise: in a review that also reports a failure, these make its praise words count against ("Oh
 * great, another update and now I can't log in", "Wow thanks for the update that made it crash").
 */
export const IRONY =
  /\b(oh (great|wonderful|joy|good|perfect|nice|brilliant)|just (great|perfect|wonderful|brilliant|fantastic)|yeah right|wow,? thanks|thanks a lot|as always|truly a masterpiece|what a masterpiece|brilliant idea|great idea|genius (move|idea)|bravo|slow clap|great deal)\b/;

/** "use it every day", "for years": the reviewer's habit of use. */
const HABIT =
  /\b(every (day|morning|night|evening|week|weekend|single day)|each (day|morning)|daily|for years|years now|been (using|with)|use it (for|to|after|every|at|on|in|when|with|whenever)|routine)\b/;
export const HABIT_VALUE = 1;
export const habitualUse = (text: string) => HABIT.test(text);

/** "Good app but please add …": a wish after "but" is no complaint. */
const REQUEST_AFTER_BUT = /\b(please|pls|add|need|needs|want|wish|would|could|hope|expected|usually)\b/;
export const IMPLIED_CONTRAST = 1.5;

/**
 * "Scans are fine but every export has a footer": a "but" followed by no opinion word (nor a wish) still
 * says the rest goes against what came before; the value it stands for, or 0.
 */
export function impliedContrast(before: number, afterBut: string): number {
  if (before === 0 || REQUEST_AFTER_BUT.test(afterBut)) return 0;
  return -Math.sign(before) * IMPLIED_CONTRAST;
}

export const PRICE_ROSE_VALUE = -2.5;
const FROM_TO =
  /\b(?:from|was|were|used to be|paid)\s+[$€£]?\s?(\d+(?:[.,]\d+)?)\b[^.!?\d]{0,25}?\b(?:to|now(?: it's| it is| is)?)\s+[$€£]?\s?(\d+(?:[.,]\d+)?)/g;
const MONEY_CONTEXT =
  /[$€£]|\b(price|cost|costs|fee|subscription|plan|premium|lifetime|a (month|year|week)|dollars|euros|bucks|pay|paid|charged?)\b/;

/** "went from 99 to 199", "was 40 a year, now it's 100": a price that rose, told in figures. */
export function priceRose(text: string): boolean {
  if (!MONEY_CONTEXT.test(text)) return false;
  for (const m of text.matchAll(FROM_TO)) {
    if (parseFloat(m[2].replace(",", ".")) > parseFloat(m[1].replace(",", "."))) return true;
  }
  return false;
}
