/**
 * Answer rule 4 ("no answer carries a review's author") through the HTTP interfaces on a real KV file: a
 * developer reply that greets the reviewer ("Hi Jane Roe", "Thanks Jane") and a text that signs with the name
 * are quoted with the name masked as "[author]", in feedback_reviews and in feedback_themes' examples. A review
 * stored before the rule (its name in the text) is masked once the store gives it again.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { acmeOwnApp } from "../helpers/own_app.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredReview } from "../../lib/feedback/types.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");

/** The site with acme.test verified and its own app "Acme" (listing by Acme, www.acme.test). */
async function world() {
  const s = await openSite({ now: NOW });
  const own = await acmeOwnApp(s, NOW);
  const imp = (lines: Record<string, unknown>[]) => s.importReviews(own.id, lines);
  /** A read tool's answer as text (the test looks for the author's name anywhere in it). */
  const ask = async (tool: string, input: Record<string, unknown>) => {
    const res = await s.ask(tool, input);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return text;
  };
  return { deps: s.deps, t: s.t, own, imp, ask, close: s.close };
}

const line = (
  id: string,
  author: string,
  text: string,
  reply: string | null,
  date = "2026-11-18T09:00:00Z",
) => ({
  id,
  author,
  rating: 1,
  text,
  date,
  ...(reply ? { reply } : {}),
});

Deno.test("review author: a reply greeting the reviewer and a signed text are quoted without the name", async () => {
  const w = await world();
  try {
    await w.imp([
      line(
        "p1",
        "Jane Roe",
        "Jane Roe here: the app keeps crashing since 2.1, contact jane@roe.example",
        "Hi Jane Roe, sorry about that! Please update to 2.2.",
      ),
      line(
        "p2",
        "María José García",
        "Crashes on start every time. Signed, María",
        "Thanks María, fixed in 2.2.",
      ),
      line("p3", "JANE", "Keeps crashing when I open the camera. -- jane", "Hello Jane! Update please."),
      // a nickname of plain words: only the whole nickname is masked, its words stay in other sentences
      line(
        "p4",
        "not happy",
        "Not happy at all: it keeps crashing. not happy",
        "We are sorry you are Not happy.",
      ),
    ]);
    const reviews = await w.ask("feedback_reviews", { app: "Acme", period: "last_7_days" });
    const themes = await w.ask("feedback_themes", { app: "Acme", period: "last_7_days" });
    for (const [what, answer] of [["feedback_reviews", reviews], ["feedback_themes", themes]]) {
      for (
        const name of ["Jane", "JANE", "jane@", "Roe", "María", "José", "García", "not happy", "Not happy"]
      ) {
        assert.ok(!answer.includes(name), `${what} carries "${name}": ${answer}`);
      }
    }
    const body = JSON.parse(reviews);
    const byText = (start: string) => body.reviews.find((r: { text: string }) => r.text.startsWith(start));
    assert.equal(byText("[author] here").reply, "Hi [author], sorry about that! Please update to 2.2.");
    assert.equal(byText("Crashes on start").text, "Crashes on start every time. Signed, [author]");
    assert.equal(byText("Crashes on start").reply, "Thanks [author], fixed in 2.2.");
    assert.equal(byText("Keeps crashing when").reply, "Hello [author]! Update please.");
    assert.equal(byText("[author] at all").text, "[author] at all: it keeps crashing. [author]");
    assert.ok(JSON.parse(themes).apps[0].themes.length > 0, "the crashes still make a theme");
  } finally {
    await w.close();
  }
});

Deno.test("review author: a review stored before the rule is masked when the store gives it again", async () => {
  const w = await world();
  try {
    const old = line("o1", "Jane Roe", "Jane Roe: crashes since the update", "Hi Jane, we are on it.");
    await w.imp([old]);
    // As a store written before the rule held it: the name in text and reply, and the hash of then.
    const key = keys.feedbackReview(w.t.org, w.own.id, "o1");
    const stored = (await w.deps.kv.get<StoredReview>(key)).value!;
    await w.deps.kv.set(key, {
      ...stored,
      text: old.text,
      reply: { text: old.reply!, at: stored.reply!.at },
      content_hash: "0".repeat(64),
    });
    assert.match(await w.ask("feedback_reviews", { app: "Acme", period: "last_7_days" }), /Jane/);
    const again = await w.imp([old]);
    assert.equal(again.updated, 1, JSON.stringify(again));
    const answer = await w.ask("feedback_reviews", { app: "Acme", period: "last_7_days" });
    assert.ok(!answer.includes("Jane") && !answer.includes("Roe"), answer);
    assert.equal((await w.imp([old])).duplicates, 1, "stored once, then a duplicate as before");
  } finally {
    await w.close();
  }
});

Deno.test("review author: the name without its accents, as a handle, or inside an email address is not quoted", async () => {
  const w = await world();
  try {
    const cases: [string, string][] = [
      ["María García", "Maria Garcia: crashes on start"],
      ["Maria Garcia", "María García says it crashes"],
      ["Jane Roe", "jane.roe crashes"],
      ["Jane Roe", "jane_roe and JaneRoe both crash"],
      ["Jane Roe", "reach me: Jane.Roe@gmail.com, it crashes"],
    ];
    await w.imp(cases.map(([author, text], i) => line(`acc${i}`, author, text, null)));
    const out = await w.ask("feedback_reviews", { period: "last_7_days", app: w.own.id, limit: 25 });
    for (const name of [/Mar[ií]a/i, /Garc[ií]a/i, /jane/i, /\broe\b/i, /gmail/i]) {
      assert.doesNotMatch(out, name, `${name} quoted: ${out}`);
    }
    assert.match(out, /\[author\]: crashes on start/);
    assert.match(out, /\[author\] crashes/);
    assert.match(out, /reach me: \[email\]/, "the address is masked whole, not cut around the name");
    // a word of the text that only looks like part of the name stays
    assert.match(out, /crashes on start/);
  } finally {
    await w.close();
  }
});

Deno.test("review author: another review's author named in a text is masked when imported with it (2+ words)", async () => {
  const w = await world();
  try {
    await w.imp([
      line("f1", "Frank Vertest", "Crashes when I open the camera since the update", null),
      line("f2", "María Lópezz", "Keeps crashing on start, useless", null),
      line(
        "f3",
        "Someone Else",
        "Frank Vertest here, email me frank@vertest.example, Someone Else wrote this. frank.vertest crashes too",
        "Thanks FRANK VERTEST, and Maria Lopezz: fixed in 2.2.",
      ),
      // a one-word author is never masked in other reviews' texts: "Sam" and "Great" stay ordinary words
      line("f4", "Great", "Crashes all the time", null),
      line("f5", "Pat Doe", "Great app but it keeps crashing, Sam says so too. Frank is fine", null),
      line("f6", "Sam", "Crashing daily", null),
    ]);
    const reviews = await w.ask("feedback_reviews", { app: "Acme", period: "last_7_days" });
    const themes = await w.ask("feedback_themes", { app: "Acme", period: "last_7_days" });
    for (const [what, answer] of [["feedback_reviews", reviews], ["feedback_themes", themes]]) {
      for (const name of [/vertest/i, /l[oó]pezz/i, /Someone Else/]) {
        assert.doesNotMatch(answer, name, `${what} carries ${name}: ${answer}`);
      }
    }
    const body = JSON.parse(reviews);
    const byText = (start: string) => body.reviews.find((r: { text: string }) => r.text.startsWith(start));
    assert.equal(
      byText("[author] here").text,
      "[author] here, email me [email], [author] wrote this. [author] crashes too",
    );
    assert.equal(byText("[author] here").reply, "Thanks [author], and [author]: fixed in 2.2.");
    assert.equal(
      byText("Great app").text,
      "Great app but it keeps crashing, Sam says so too. Frank is fine",
      "one-word names and a lone first name of another author stay",
    );
  } finally {
    await w.close();
  }
});
