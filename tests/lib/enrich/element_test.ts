import assert from "node:assert/strict";
import {
  elementName,
  plainElementName,
  storedFingerprint,
  withFormElement,
  withPlainElement,
} from "../../../lib/enrich/element.ts";

Deno.test("element: visible text wins, trimmed and with whitespace collapsed", () => {
  assert.equal(
    elementName({
      tag: "button",
      text: "  Start\n  free   trial ",
      role: "button",
      id: "cta",
      selector: "#cta",
    }),
    "Start free trial",
  );
});

Deno.test("element: long text is cut to 60 characters", () => {
  const name = elementName({ tag: "a", text: "word ".repeat(40), selector: "a" })!;
  assert.equal(name.length <= 60, true);
  assert.ok(name.endsWith("…"));
  assert.ok(name.startsWith("word word"));
});

Deno.test("element: without text, the ARIA role with its tag, then #id, then the tag", () => {
  assert.equal(
    elementName({ tag: "DIV", text: "", role: "Button", id: "x", selector: "div" }),
    "button (div)",
  );
  assert.equal(elementName({ tag: "button", role: "button", selector: "button" }), "button");
  assert.equal(
    elementName({ tag: "a", text: null, role: null, id: "pricing-link", selector: "a" }),
    "#pricing-link",
  );
  assert.equal(elementName({ tag: "SVG", text: "   ", selector: "svg" }), "svg");
});

Deno.test("element: form controls and personal-looking text never become a name", () => {
  assert.equal(
    elementName({ tag: "input", text: "typed secret", role: "textbox", selector: "input" }),
    "textbox (input)",
  );
  assert.equal(elementName({ tag: "textarea", text: "my message", id: "msg", selector: "textarea" }), "#msg");
  assert.equal(elementName({ tag: "span", text: "jane.doe@example.org", selector: "span" }), "span");
  assert.equal(
    elementName({ tag: "td", text: "4111 1111 1111 1111", role: "cell", selector: "td" }),
    "cell (td)",
  );
  assert.equal(
    elementName({ tag: "input", value: "hunter2", text: null, selector: "input" }),
    "input",
  );
});

Deno.test("element: null or an empty fingerprint gives null", () => {
  assert.equal(elementName(null), null);
  assert.equal(elementName(undefined), null);
  assert.equal(elementName({}), null);
  assert.equal(elementName({ tag: "<script>", selector: "x" }), null);
});

Deno.test("element: only a text's start is read, so a huge text costs what a short one does and is judged by what is shown", () => {
  // 1 MB without a space or "@": the personal-data check used to scan it from every position (quadratic)
  const huge = "a".repeat(1_000_000);
  assert.equal(elementName({ tag: "button", text: huge, selector: "b" }), "a".repeat(59) + "…");
  // personal data far past the cut cannot show, so it does not hide the name
  assert.equal(
    elementName({ tag: "a", text: "Read more " + "x".repeat(5_000) + " jane@example.com", selector: "a" }),
    ("Read more " + "x".repeat(49)).trimEnd() + "…",
  );
  // personal data inside what is shown is still refused
  assert.equal(elementName({ tag: "a", text: "Mail jane@example.com now", selector: "a" }), "a");
});

Deno.test("element: names are cut by code points, never inside a surrogate pair, and lone surrogates are replaced", () => {
  const name = elementName({ tag: "button", text: "😀".repeat(100), selector: "b" })!;
  assert.ok(name.isWellFormed());
  assert.equal(Array.from(name).length, 60);
  const lone = elementName({ tag: "button", text: "Buy \uD800 now", selector: "b" })!;
  assert.ok(lone.isWellFormed());
  assert.equal(lone, "Buy \uFFFD now");
});

Deno.test("element: content is never named by its text, only what a person clicks to act (review #10)", () => {
  // a paragraph triple-clicked to select it, an address on an account page, a form around a rich-text editor
  assert.equal(
    elementName({ tag: "p", text: "Dear Dr. Meyer, my test came back", id: "typed", selector: "p" }),
    "#typed",
  );
  assert.equal(elementName({ tag: "dd", text: "Jane Roe, 12 Elm Street", selector: "dd" }), "dd");
  assert.equal(
    elementName({ tag: "div", text: "what I wrote", role: "textbox", selector: "div" }),
    "textbox (div)",
  );
  assert.equal(
    elementName({ tag: "form", text: "I was diagnosed last week Post", id: "comment", selector: "form" }),
    "#comment",
  );
  // a link, a button, a summary, a label, or an element acting as a button keep their text
  assert.equal(elementName({ tag: "a", text: "Pricing", selector: "a" }), "Pricing");
  assert.equal(elementName({ tag: "summary", text: "Details", selector: "summary" }), "Details");
  assert.equal(elementName({ tag: "div", text: "Open menu", role: "button", selector: "div" }), "Open menu");
});

Deno.test("element: a stored fingerprint keeps the text of an action element only", () => {
  const para = { tag: "p", text: "what I typed", selector: "p" };
  assert.deepEqual(storedFingerprint(para), { tag: "p", text: null, selector: "p" });
  const link = { tag: "a", text: "Pricing", selector: "a" };
  assert.equal(storedFingerprint(link), link);
  assert.equal(storedFingerprint(null), null);
  const props = withFormElement("$autocapture", {
    action: "submit",
    form: {
      fingerprint: { tag: "form", text: "I was diagnosed last week Post", id: "comment", selector: "form" },
    },
  });
  assert.equal(props.form_element, "#comment");
  assert.equal((props.form as { fingerprint: { text: unknown } }).fingerprint.text, null);
});

Deno.test("element: the plain name never holds the text: #id, else role with tag, else tag", () => {
  const menu = {
    tag: "button",
    text: "Jane Roe ▾",
    role: "button",
    id: "account-menu",
    selector: "#account-menu",
  };
  assert.equal(elementName(menu), "Jane Roe ▾");
  assert.equal(plainElementName(menu), "#account-menu");
  assert.equal(plainElementName({ ...menu, id: null }), "button");
  assert.equal(
    plainElementName({ tag: "div", text: "Jane", role: "menuitem", selector: "div" }),
    "menuitem (div)",
  );
  assert.equal(plainElementName({ tag: "a", text: "Jane Roe", selector: "a" }), "a");
  // an element not named by its text: its name itself
  assert.equal(plainElementName({ tag: "p", text: "Jane Roe", selector: "p" }), "p");
  assert.equal(plainElementName({ tag: "div", role: "button", id: "x", selector: "div" }), "button (div)");
  assert.equal(plainElementName(null), null);
});

Deno.test("element: ingest owns element_plain on $autocapture events", () => {
  const fp = { tag: "button", text: "Jane Roe ▾", id: "account-menu", selector: "#account-menu" };
  assert.deepEqual(withPlainElement("$autocapture", fp, { action: "click", element_plain: "Jane" }), {
    action: "click",
    element_plain: "#account-menu",
  });
  assert.deepEqual(withPlainElement("$autocapture", null, { action: "click", element_plain: "Jane" }), {
    action: "click",
  });
  assert.deepEqual(withPlainElement("signup", fp, { element_plain: "mine" }), { element_plain: "mine" });
});
