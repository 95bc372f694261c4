import assert from "node:assert/strict";
import { analyzeReview } from "../../../lib/feedback/analysis/analyze.ts";
import { combinedSentiment, textSentiment } from "../../../lib/feedback/analysis/sentiment.ts";
import { classifyIntent } from "../../../lib/feedback/analysis/intent.ts";
import { lemma } from "../../../lib/feedback/analysis/tokens.ts";
import { topicsOf } from "../../../lib/feedback/themes/match.ts";
import { words } from "../../../lib/feedback/analysis/tokens.ts";

Deno.test("tokens: inflected forms meet", () => {
  for (
    const group of [["crash", "crashes", "crashed", "crashing"], ["freeze", "freezes", "froze", "freezing"], [
      "notification",
      "notifications",
    ], ["subscription", "subscriptions"]]
  ) {
    assert.equal(new Set(group.map(lemma)).size, 1, group.join(","));
  }
  assert.deepEqual(words("It doesn't work, I can't log in"), [
    "it",
    "does",
    "not",
    "work",
    "i",
    "can",
    "not",
    "log",
    "in",
  ]);
});

Deno.test("sentiment: negation, problem phrases without opinion words, but-clauses", () => {
  assert.equal(textSentiment(null, "Great app, works perfectly").label, "positive");
  assert.equal(textSentiment(null, "Not good at all").label, "negative");
  assert.equal(
    textSentiment(null, "Since the update I can't log in, it just doesn't open").label,
    "negative",
  );
  assert.equal(textSentiment(null, "Not bad, does the job").label, "positive");
  assert.equal(textSentiment(null, "I loved it at first but now it keeps crashing").label, "negative");
  assert.equal(textSentiment(null, "Used to work great, now every page is distorted").label, "negative");
  assert.equal(textSentiment(null, "The the the").label, "neutral");
});

Deno.test("sentiment: the stars decide where text and stars disagree", () => {
  const praise = textSentiment(null, "Great app");
  assert.equal(combinedSentiment(praise, 5), "positive");
  assert.equal(combinedSentiment(praise, 1), "negative", "a 1-star 'great app' is sarcasm or a mistake");
  assert.equal(combinedSentiment(textSentiment(null, "One small bug with the widget"), 5), "positive");
  assert.equal(combinedSentiment(textSentiment(null, "hmm"), 2), "negative", "no sentiment words: the stars");
  assert.equal(combinedSentiment(textSentiment(null, "Terrible"), 3), "negative");
});

Deno.test("intent: bug report, feature request, praise, question, price complaint, other", () => {
  const t = (text: string, rating: number) =>
    classifyIntent(null, text, textSentiment(null, text).label, rating);
  assert.equal(t("Keeps crashing when I open settings", 1), "bug_report");
  assert.equal(t("Login doesn't work since the update", 2), "bug_report");
  assert.equal(t("Please add a dark mode, would be great", 4), "feature_request");
  assert.equal(t("Love it, best app ever", 5), "praise");
  assert.equal(t("How do I export my data?", 3), "question");
  assert.equal(t("Way too expensive, the subscription doubled", 1), "price_complaint");
  assert.equal(t("I use it for work", 3), "other");
});

Deno.test("themes: taxonomy topics by words and phrases", () => {
  const topics = (s: string) => topicsOf(words(s).map(lemma));
  assert.deepEqual(topics("It crashed twice and I can't log in"), ["crashes_bugs", "login_account"]);
  assert.deepEqual(topics("Drains my battery"), ["performance_battery"]);
  assert.deepEqual(topics("Too many ads, and the subscription is pricey"), ["pricing_subscriptions", "ads"]);
  assert.deepEqual(topics("No dark mode"), ["ui_usability"]);
  assert.deepEqual(topics("lovely"), []);
});

Deno.test("analysis: an uncovered language counts but is not analysed", () => {
  const de = analyzeReview({
    rating: 2,
    title: null,
    text: "Die App stürzt ständig ab, seit dem letzten Update geht nichts mehr",
    language: null,
  });
  assert.equal(de.language, "de");
  assert.equal(de.analysed, false);
  assert.equal(de.sentiment, null);
  const en = analyzeReview({ rating: 5, title: "Superb", text: "Great app", language: null });
  assert.equal(en.analysed, true);
  assert.equal(en.sentiment, "positive");
  assert.equal(en.intent, "praise");
});

Deno.test("sentiment: clause-scoped negation, failing features, contrast, idioms, emoji", () => {
  const label = (s: string) => textSentiment(null, s).label;
  // A negation reaches four words but not past a comma or a sentence end.
  assert.equal(label("Never had any big problems with it"), "positive");
  assert.equal(label("Not perfect, but great"), "positive");
  assert.equal(label("No ads. Great"), "positive");
  // A negated verb with no opinion word is a feature that fails.
  assert.equal(label("Photos won't upload"), "negative");
  assert.equal(label("Checkout does nothing"), "negative");
  assert.equal(label("Readings don't sync anymore"), "negative", "'anymore' keeps its sign");
  assert.equal(label("Not only fast, it is also pretty"), "positive", "'not only' negates nothing");
  // What follows "but" outweighs what precedes; "nothing but" is no contrast.
  assert.equal(label("Nice design but it keeps crashing"), "negative");
  assert.equal(label("Had some bugs at first but now it is excellent"), "positive");
  assert.equal(label("The widget shows nothing but a grey screen"), "negative");
  // App-review idioms and rating numerals.
  assert.equal(label("Don't waste your money"), "negative");
  assert.equal(label("Worth every penny"), "positive");
  assert.equal(label("Price hike again"), "negative");
  assert.equal(label("10/10"), "positive");
  assert.equal(label("1 star"), "negative");
  assert.equal(label("waaay too big"), "negative");
  assert.equal(label("soooo gooood"), "positive");
  assert.equal(label("Can't add my account"), "negative", "'add' is not folded into 'ad'");
  assert.equal(label("Good app"), "positive", "'good app' is not the phrase 'better app'");
  assert.equal(label("Refund please"), "negative", "'please' is not 'pleased'");
  assert.equal(label("👍"), "positive");
  assert.equal(label("Super motivating. Not."), "negative");
});

Deno.test("intent: payments, malfunctions, requests against questions", () => {
  const t = (text: string, rating: number) =>
    classifyIntent(null, text, textSentiment(null, text).label, rating);
  assert.equal(
    t("Payment failed but my card was charged anyway", 1),
    "bug_report",
    "a failed payment is a bug",
  );
  assert.equal(t("They locked the workout log behind a paywall", 1), "price_complaint");
  assert.equal(t("Shipping is $12 now", 2), "price_complaint");
  assert.equal(
    t("I pay for a music app and get podcasts", 1),
    "other",
    "one payment word is no price complaint",
  );
  assert.equal(t("My saved playlists disappeared", 1), "bug_report");
  assert.equal(t("Episodes won't download on mobile data", 2), "bug_report");
  assert.equal(t("Good app, I'd like a unified inbox", 4), "feature_request");
  assert.equal(t("Needs a tablet layout", 3), "feature_request");
  assert.equal(t("Can I add a second passenger after booking?", 3), "question");
  assert.equal(t("Could you add an option to hide my status?", 5), "feature_request");
  assert.equal(t("Why does a keyboard need network access? Uninstalled.", 1), "other", "rhetorical");
  assert.equal(t("Why did my backup disappear? Is this expected?", 2), "question");
});

Deno.test("analysis: floors on the reviews written for this project (tests/fixtures/reviews)", async () => {
  const list: { stars: number; intent: string; text: string }[] = JSON.parse(
    await Deno.readTextFile(new URL("../../fixtures/reviews/authored_reviews.json", import.meta.url)),
  );
  assert.ok(list.length >= 800);
  let polar = 0, agree = 0, negative = 0, negativeAgree = 0, correct = 0;
  for (const r of list) {
    const s = textSentiment(null, r.text);
    if (r.stars !== 3) {
      const want = r.stars > 3 ? "positive" : "negative";
      polar++;
      if (s.label === want) agree++;
      if (want === "negative") {
        negative++;
        if (s.label === want) negativeAgree++;
      }
    }
    if (classifyIntent(null, r.text, s.label, r.stars, s.habit) === r.intent) correct++;
  }
  // Floors just under the figures of 24 Nov (91.2%, 92.9% of the negative, intent accuracy 85.6%), so that
  // a change that loses ground is seen.
  assert.ok(agree / polar >= 0.9, `sentiment agreement ${agree / polar}`);
  assert.ok(negativeAgree / negative >= 0.91, `agreement on negative reviews ${negativeAgree / negative}`);
  assert.ok(correct / list.length >= 0.84, `intent accuracy ${correct / list.length}`);
});

Deno.test("sentiment: past states, repetition, measure, solved problems, manner, concession", () => {
  const label = (s: string) => textSentiment(null, s).label;
  // "used to" and "no longer" negate what follows, or tell of a loss when nothing follows.
  assert.equal(label("I used to love it"), "negative");
  assert.equal(label("Used to be great"), "negative");
  assert.equal(label("No longer crashes on my tablet"), "positive");
  assert.equal(label("It no longer syncs"), "negative");
  assert.equal(label("Once you get used to it it's great"), "positive", "'get used to' is no past state");
  // Something done again and again, unasked; but the user's own choice to go on is not.
  assert.equal(label("My CV keeps getting replaced with an older version"), "negative");
  assert.notEqual(label("I'll keep using it"), "negative");
  assert.equal(label("Keeps getting better"), "positive");
  // "too" with a plain or mildly positive word is past the right measure.
  assert.equal(label("Buttons are too small"), "negative");
  // A problem reported as solved, and "fixed" is no plea to fix.
  assert.equal(label("The crash is fixed"), "positive");
  assert.equal(label("Used to crash on my old phone but the latest patch fixed it"), "positive");
  assert.equal(label("Still not fixed"), "negative");
  assert.equal(label("Please fix it"), "negative");
  // Speed and ease of trouble; "less" lowers what follows it.
  assert.equal(label("Battery drains fast"), "negative");
  assert.equal(label("The plastic breaks really easy"), "negative");
  assert.equal(label("Less creepy than the others"), "positive");
  // A conceded clause weighs less than the main one; "not only ... but also" adds.
  assert.equal(label("Although it crashes sometimes, I love it"), "positive");
  assert.equal(label("I love it although it crashes a lot"), "positive");
  assert.equal(label("Not only slow, but also ugly"), "negative");
});

Deno.test("sentiment: a 'but' with nothing after it, conditions, irony, prices, negated nouns, 'like'", () => {
  const label = (s: string) => textSentiment(null, s).label;
  assert.equal(label("Scans are fine but every export has a footer"), "negative");
  assert.equal(label("Good app but please add a widget"), "positive", "a wish after 'but' is no complaint");
  const conditional = textSentiment(null, "If you add tags, I'll give it five stars").score;
  assert.ok(conditional < textSentiment(null, "I'll give it five stars").score / 2, "praise in a condition");
  // Irony needs a failure beside it.
  assert.equal(label("Oh great, another update and now I can't see my transactions"), "negative");
  assert.equal(label("Wow thanks for the update that made the game crash on startup"), "negative");
  assert.equal(
    label("Oh great, they added a dark mode"),
    "positive",
    "no failure, no irony ('added' is no 'ad')",
  );
  assert.equal(label("Charged 70 dollars after the trial, no refund. Nice."), "negative");
  assert.equal(label("Crashes sometimes. Great otherwise."), "positive");
  assert.equal(label("Not perfect, but great"), "positive");
  // Prices: a rise told in figures, money talk as a grievance; a price praised stays praise.
  assert.equal(label("Was 40 a year, now it's 100"), "negative");
  assert.equal(label("Lifetime price went from 99 to 199"), "negative");
  assert.equal(label("Great price for what you get"), "positive");
  // "no" + a noun tells of something missing, unless it is not needed; "not a single" cuts both ways.
  assert.equal(label("Hotel had no record of my booking"), "negative");
  assert.notEqual(label("No account needed"), "negative");
  assert.equal(label("Not a single crash in a year"), "positive");
  assert.equal(label("Matched with 50 people, not a single real conversation"), "negative");
  assert.equal(label("The widget shows nothing but a grey box"), "negative", "'nothing but' negates nothing");
  // "like" is an opinion as a verb only.
  assert.equal(label("Hidden spread on every trade makes fees like 3%"), "negative");
  assert.equal(label("I really like it"), "positive");
  // No opinion at all: a habit of use reads as content, and says so.
  const habit = textSentiment(null, "Use it every day for work deliveries");
  assert.equal(habit.label, "positive");
  assert.equal(habit.habit, true);
  assert.equal(textSentiment(null, "Love it, use it every day").habit, false);
});

Deno.test("intent: passing bugs in content reviews, habits, lacks, removals, praised prices, rhetoric", () => {
  const t = (text: string, rating: number) => {
    const s = textSentiment(null, text);
    return classifyIntent(null, text, s.label, rating, s.habit);
  };
  assert.equal(
    t("Great filters and a nice curves tool. Crashes once in a while on big RAW files.", 4),
    "praise",
  );
  assert.equal(
    t("Love it, but since the update it crashes on the camera screen. Please fix", 4),
    "bug_report",
  );
  assert.equal(t("hasn't crashed once in two years of daily commuting", 5), "praise");
  assert.equal(t("Use it after every gym session.", 5), "other", "a habit told plainly is no praise");
  assert.equal(
    t("Decent editor. Missing batch editing though, I shoot 300 photos a wedding.", 3),
    "feature_request",
  );
  assert.equal(t("Needs chapter support. Otherwise okay.", 3), "feature_request");
  assert.equal(t("Boring. Deleted after 5 minutes.", 1), "other", "the reviewer deleting the app is no bug");
  assert.equal(t("Deleted my photos after the sync", 1), "bug_report");
  assert.equal(t("Good prices, lots of fake reviews on the listings.", 3), "other");
  assert.equal(
    t("Gets the job done once a year. The interface is dated.", 3),
    "other",
    "'a year' is no price",
  );
  assert.equal(t("It's 4.99 a month now, for the same features", 2), "price_complaint");
  assert.equal(t("It's fine. Does what it needs to do, nothing special.", 3), "other");
  assert.notEqual(t("Every filter is locked. Why even call it free?", 1), "question", "rhetorical");
  assert.notEqual(
    t("Sentences are weird. When will I ever say 'the horse eats the newspaper'?", 2),
    "question",
  );
  assert.equal(t("Articles open and then scroll to the top by itself while reading.", 2), "bug_report");
  assert.equal(t("Connects, then nothing loads.", 1), "bug_report");
});

Deno.test("language: short English reviews are English, whatever letters they use", () => {
  for (
    const text of [
      "Since iOS 18 the widget shows nothing but a grey box.",
      "Calm voices and good variety. The app nags me with reminders a bit.",
      "Autocorrect changes correct words into wrong ones. It turned 'meeting' into 'meeting's' all day.",
      // Real reviews (Mini-BAR's training apps) that were once read as another language and left unanalysed.
      "Connection issues to main server.",
      "Quite user friendly",
      "Stops reporting often",
      "I prefer old version.",
      "Lousy",
    ]
  ) {
    assert.equal(analyzeReview({ rating: 3, title: null, text, language: null }).language, "en", text);
  }
  const fr = analyzeReview({
    rating: 2,
    title: null,
    text: "L'application plante à chaque ouverture depuis la mise à jour",
    language: null,
  });
  assert.equal(fr.language, "fr");
  const de = "Top App. Noch mit meiner Garmin Uhr, habe ich alles was ich brauche.";
  assert.equal(analyzeReview({ rating: 5, title: null, text: de, language: null }).language, "de");
});
