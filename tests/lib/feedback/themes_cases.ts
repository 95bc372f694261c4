import assert from "node:assert/strict";
import fc from "fast-check";
import { analyzeReview } from "../../../lib/feedback/analysis/analyze.ts";
import { themeReport } from "../../../lib/feedback/themes/aggregate.ts";
import { TAXONOMY } from "../../../lib/feedback/themes/taxonomy.ts";
import { demoReviews } from "../../../lib/feedback/demo_reviews.ts";
import { hasContactDetails } from "../../../lib/answers/privacy.ts";
import { distinctQuotes } from "../../../lib/feedback/quotes.ts";
import type { IncomingReview, StoredReview } from "../../../lib/feedback/types.ts";

function stored(r: Omit<IncomingReview, "author" | "reply">, i: number): StoredReview {
  return {
    v: 1,
    app: "app_t",
    store: "app_store",
    id: `${r.id}:${i}`,
    source: "import",
    rating: r.rating,
    title: r.title,
    text: r.text,
    language: null,
    country: null,
    version: null,
    created_at: r.created_at,
    updated_at: r.created_at,
    reply: null,
    author_hash: null,
    content_hash: "",
    analysis: analyzeReview(r),
  };
}

// Sentences reviewers write, around which personal details are put.
const SENTENCES = [
  "Keeps crashing at checkout since the update",
  "Great app, love the daily deals",
  "Please add a dark mode for night shopping",
  "Delivery slots disappear after payment",
  "Write to me if you need more details",
  "The barcode scanner never reads coupons",
];
const name = fc.stringMatching(/^[a-z]{3,9}$/);
const email = fc.tuple(name, name, fc.constantFrom("com", "org", "net", "de", "co.uk"))
  .map(([a, b, tld]) => ({ text: `${a}.${b}@${b}mail.${tld}`, pieces: [a, b, `${b}mail`] }));
const phone = fc.tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1_000_000, max: 9_999_999 }))
  .chain(([area, n]) =>
    fc.constantFrom(
      `+1 (${area}) ${String(n).slice(0, 3)}-${String(n).slice(3)}`,
      `${area}.${String(n).slice(0, 3)}.${String(n).slice(3)}`,
      `0${area}${n}`,
    )
  ).map((text) => ({ text, pieces: [] as string[] }));
const url = fc.tuple(name, name, fc.constantFrom("https://", "http://", "www.", ""))
  .map(([host, path, scheme]) => ({
    text: `${scheme}${host}shop.com/${path}`,
    pieces: [`${host}shop`, path],
  }));
const handle = name.map((n) => ({ text: `@${n}_official`, pieces: [n, `${n}_official`, "official"] }));
const personal = fc.oneof(email, phone, url, handle);

Deno.test("themes: no label or phrase carries an email, phone number, web address or handle", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.constantFrom(...SENTENCES),
          personal,
          fc.constantFrom(...SENTENCES),
          fc.integer({ min: 1, max: 5 }),
        ),
        { minLength: 3, maxLength: 12 },
      ),
      (rows) => {
        // Each review three times, so its phrases are frequent enough to become themes.
        const reviews = rows.flatMap(([a, p, b, rating], i) =>
          [0, 1, 2].map((k) =>
            stored({
              id: `r${i}`,
              rating,
              title: null,
              text: `${a}, contact ${p.text} ${b}.`,
              language: "en",
              country: null,
              version: null,
              created_at: k,
              updated_at: k,
            }, k)
          )
        );
        // Words the sentences or the taxonomy's own names hold are not personal, even when a generated
        // name happens to spell one (a name "and" is in the label "crashes and bugs").
        const known = [...SENTENCES, ...TAXONOMY.flatMap((t) => [t.id, t.label])].join(" ");
        const ordinary = new Set(known.toLowerCase().match(/[a-z]+/g));
        const forbidden = new Set(
          rows.flatMap(([, p]) => p.pieces).filter((w) => !ordinary.has(w) && w !== "contact"),
        );
        const report = themeReport(reviews, []);
        const texts = [
          ...reviews.flatMap((r) => r.analysis.phrases),
          ...report.themes.flatMap((t) => [t.id, t.label, ...(t.phrases ?? [])]),
        ];
        for (const t of texts) {
          assert.ok(!hasContactDetails(t), `contact details in "${t}"`);
          assert.ok(!/[@\d]|https?|www/.test(t), `personal detail in "${t}"`);
          for (const w of t.replace(/^emergent:/, "").split(/[\s_]+/)) {
            assert.ok(!forbidden.has(w), `"${w}" of a personal detail in "${t}"`);
          }
        }
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("themes: the demo's labels are the taxonomy's names or phrases its reviews wrote", () => {
  for (const [kind, seed] of [["own", 11], ["rival", 12]] as const) {
    const incoming = demoReviews(kind, 320, Date.parse("2026-11-01T00:00:00Z"), seed);
    const reviews = incoming.map((r, i) => stored(r, i));
    const written = reviews.map((r) => `${r.title} ${r.text}`.toLowerCase()).join(" ");
    const taxonomyLabels = new Set(TAXONOMY.map((t) => t.label));
    const report = themeReport(reviews, []);
    assert.ok(report.themes.some((t) => t.kind === "emergent"), `${kind}: emergent themes`);
    for (const t of report.themes) {
      if (t.kind === "taxonomy") {
        assert.ok(taxonomyLabels.has(t.label), t.label);
        continue;
      }
      for (const p of [t.label, ...(t.phrases ?? [])]) {
        // As written: the phrase occurs in a review, word for word (never stems like "ruin brows").
        assert.match(written, new RegExp(`\\b${p}\\b`), `${kind}: "${p}" is not words of the reviews`);
      }
      assert.ok(!/shopper|example/.test(t.label), `${kind}: "${t.label}" comes from an email address`);
      assert.doesNotMatch(t.label, /\b(since|sinc|exampl)\b/);
    }
  }
});

const topicsOf = (text: string, rating: number) =>
  analyzeReview({ rating, title: null, text, language: "en" }).topics;

Deno.test("themes: a review is filed under what it says", () => {
  // Praise of delivery tracking is not about privacy.
  const praise = topicsOf("Great app, easy to use and delivery tracking works perfectly.", 5);
  assert.ok(!praise.includes("privacy"), praise.join());
  // Access to the reviewer's contacts is privacy, not customer support.
  const access = topicsOf("Why does it need access to my contacts and location? Feels like tracking.", 2);
  assert.ok(access.includes("privacy"), access.join());
  assert.ok(!access.includes("customer_support"), access.join());
  // Getting in touch still is support; being tracked still is privacy.
  assert.ok(topicsOf("I contacted them twice and nobody answered.", 1).includes("customer_support"));
  assert.ok(topicsOf("This app keeps tracking me even when closed.", 1).includes("privacy"));
  // Words that share a lemma or a sense with a topic's word but not its topic.
  assert.ok(!topicsOf("Booked my whole trip through the app, easy changes.", 5).includes("content"));
  assert.ok(topicsOf("Great selection of books to read.", 5).includes("content"));
  assert.ok(!topicsOf("Advertised at $2.99 a month but they charged $89.", 1).includes("ads"));
  assert.ok(topicsOf("Advertising everywhere, can't read a page.", 1).includes("ads"));
  assert.ok(!topicsOf("Super easy, paid my rent in under a minute.", 5).includes("pricing_subscriptions"));
  assert.ok(topicsOf("Pay to win garbage.", 1).includes("pricing_subscriptions"));
  assert.ok(!topicsOf("Recommendations keep pushing the same five shows.", 2).includes("notifications"));
  assert.ok(!topicsOf("Paying for four streaming services is too much.", 2).includes("customer_support"));
  // "them" is no UI word (the lemma of "theme" once was "them").
  assert.ok(!topicsOf("Too many notifications, I can't turn them off.", 2).includes("ui_usability"));
});

Deno.test("intent: a price that is too high is a price complaint, never a bug report", () => {
  for (
    const [title, text, rating] of [
      [null, "too expensive", 1],
      [null, "too expensive", 2],
      [null, "Too expensive", 3],
      ["Too expensive", "The new premium subscription is way too expensive for what it offers.", 1],
    ] as const
  ) {
    const a = analyzeReview({ rating, title, text, language: "en" });
    assert.equal(a.intent, "price_complaint", `${text} (${rating}★): ${a.intent}`);
  }
  // The demo's pricing theme is dominated by price complaints.
  const reviews = demoReviews("own", 320, Date.parse("2026-11-01T00:00:00Z"), 11).map((r, i) => stored(r, i));
  const pricing = themeReport(reviews, []).themes.find((t) => t.id === "pricing_subscriptions");
  assert.equal(pricing?.dominant_intent, "price_complaint");
});

Deno.test("quotes: a theme's examples say what most of its reviews say", () => {
  const review = (i: number, rating: number, text: string) =>
    stored({
      id: `q${i}`,
      rating,
      title: null,
      text,
      language: "en",
      country: null,
      version: null,
      created_at: i,
      updated_at: i,
    }, i);
  const members = [
    review(1, 1, "Crashes every time I open a photo."),
    review(2, 2, "The app crashed and I lost my draft."),
    review(3, 1, "Crash on startup since the update."),
    review(9, 5, "Love it, no crashes at all and very fast."), // the newest
  ];
  const quotes = distinctQuotes(members, new Set(["crash"]), 3);
  assert.equal(quotes.length, 3);
  assert.ok(!quotes.some((q) => q.includes("Love it")), quotes.join(" | "));
});
