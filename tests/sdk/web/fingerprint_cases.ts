import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import {
  cssIdent,
  fingerprint,
  formFields,
  interactiveTarget,
  isNoCapture,
  ordinalOf,
  selectorFor,
  visibleText,
} from "../../../sdk/web/src/fingerprint.ts";

const page = (body: string) => parseHTML(`<!doctype html><html><body>${body}</body></html>`).document;
const el = (doc: Document, sel: string) => doc.querySelector(sel)!;

Deno.test("web-sdk fingerprint: a button gives tag, text, type as role, id, classes, selector and ordinal", () => {
  const doc = page(`<main><div class="cta"><button id="buy" class="btn btn-primary" type="submit">
    Buy   <b>now</b></button></div></main>`);
  assert.deepEqual(fingerprint(el(doc, "#buy")), {
    tag: "button",
    text: "Buy now",
    role: "submit",
    id: "buy",
    classes: ["btn", "btn-primary"],
    selector: "#buy",
    ordinal: 1,
  });
});

Deno.test("web-sdk fingerprint: ARIA role wins over type; a link keeps only its path", () => {
  const doc = page(`<nav><a role="tab" href="/account?email=ann@example.com#x">Account</a></nav>`);
  const fp = fingerprint(el(doc, "a"));
  assert.equal(fp.role, "tab");
  assert.equal(fp.href, "/account");
  assert.equal(fp.text, "Account");
});

Deno.test("web-sdk fingerprint: visible text is masked and truncated", () => {
  const doc = page(`<button>Send to ann@example.com ${"long ".repeat(40)}</button>`);
  const text = fingerprint(el(doc, "button")).text!;
  assert.ok(text.startsWith("Send to [email] long"));
  assert.ok(text.length <= 100);
  assert.ok(!text.includes("ann@"));
});

Deno.test("web-sdk fingerprint: an input's value is never text, a submit input's label is", () => {
  const doc = page(`<form><input id="e" type="email" value="ann@example.com" aria-label="Email">
    <input type="submit" value="Sign up"><textarea>secret</textarea></form>`);
  assert.equal(visibleText(el(doc, "#e")), "Email");
  assert.equal(visibleText(el(doc, "input[type=submit]")), "Sign up");
  assert.equal(visibleText(el(doc, "textarea")), null);
  const fp = JSON.stringify(fingerprint(el(doc, "#e")));
  assert.ok(!fp.includes("ann@example.com"));
});

Deno.test("web-sdk fingerprint: text inside data-no-capture and inside inputs is left out", () => {
  const doc = page(`<button>Hello <span data-no-capture>Ann Smith</span><input value="typed"></button>`);
  assert.equal(visibleText(el(doc, "button")), "Hello");
});

Deno.test("web-sdk fingerprint: data-no-capture marks an element and its whole subtree", () => {
  const doc = page(
    `<section data-no-capture><div><button id="b">Pay</button></div></section><p id="p">x</p>`,
  );
  assert.equal(isNoCapture(el(doc, "#b")), true);
  assert.equal(isNoCapture(el(doc, "#p")), false);
});

Deno.test("web-sdk selectors: path with classes and nth-of-type, anchored at the nearest stable id", () => {
  const doc = page(`<div id="pricing"><ul class="plans"><li class="plan">A</li><li class="plan pro">
    <a class="choose" href="/b">Choose</a></li></ul></div>`);
  const link = el(doc, "a.choose");
  assert.equal(selectorFor(link), "#pricing > ul.plans > li.plan.pro:nth-of-type(2) > a.choose");
  assert.equal(doc.querySelector(selectorFor(link)), link);
});

Deno.test("web-sdk selectors: generated ids and classes are not used; depth stops at five steps", () => {
  const doc = page(`<div><div><div><div><div><div id="r12345"><span class="css-1a2b345 x">go</span>
    </div></div></div></div></div></div>`);
  const sel = selectorFor(el(doc, "span"));
  assert.equal(sel.split(" > ").length, 5);
  assert.ok(!sel.includes("r12345") && !sel.includes("css-1a2b345"));
  assert.ok(sel.endsWith("span.x"));
});

Deno.test("web-sdk selectors: identifiers are escaped, so the selector parses", () => {
  assert.equal(cssIdent("a:b"), "a\\:b");
  assert.equal(cssIdent("9lives"), "\\39 lives");
});

Deno.test("web-sdk fingerprint: ordinal is the 1-based position among same-tag siblings", () => {
  const doc = page(`<ul><li>a</li><p>x</p><li>b</li><li id="c">c</li></ul>`);
  assert.equal(ordinalOf(el(doc, "#c")), 3);
});

Deno.test("web-sdk fingerprint: a click inside a link is about the link; plain text is about nothing", () => {
  const doc = page(
    `<a href="/x"><span id="s">icon</span></a><p id="p">text</p><div role="button"><i id="i"></i></div>`,
  );
  assert.equal(interactiveTarget(el(doc, "#s"))?.tagName.toLowerCase(), "a");
  assert.equal(interactiveTarget(el(doc, "#p")), null);
  assert.equal(interactiveTarget(el(doc, "#i"))?.getAttribute("role"), "button");
});

Deno.test("web-sdk forms: field names and types only, no values, no buttons, no data-no-capture fields", () => {
  const doc = page(
    `<form><input name="email" type="email" value="ann@example.com"><input name="pw" type="password"
    value="hunter2"><select name="plan"><option selected>pro</option></select><textarea name="note">hi</textarea>
    <input name="ssn" data-no-capture value="123"><button type="submit">Go</button></form>`,
  );
  const fields = formFields(el(doc, "form"));
  assert.deepEqual(fields, [
    { name: "email", type: "email" },
    { name: "pw", type: "password" },
    { name: "plan", type: "select" },
    { name: "note", type: "textarea" },
  ]);
  const json = JSON.stringify(fields);
  for (const secret of ["ann@example.com", "hunter2", "pro", "hi", "123"]) {
    assert.ok(!json.includes(`"${secret}"`));
  }
});

Deno.test("web-sdk fingerprint: content and forms carry no text; a rich-text editor's text is never read (review #10)", () => {
  const doc = page(`<main>
    <dd id="addr">Jane Roe, 12 Elm Street, Springfield</dd>
    <form id="comment"><div contenteditable="true">I was diagnosed last week</div><button>Post</button></form>
    <label id="note">Note <div contenteditable>my secret words</div></label>
    <div role="button" id="menu">Open menu</div>
  </main>`);
  assert.equal(fingerprint(el(doc, "#addr")).text, null);
  assert.equal(fingerprint(el(doc, "#comment")).text, null);
  assert.equal(fingerprint(el(doc, "#note")).text, "Note");
  assert.equal(fingerprint(el(doc, "#menu")).text, "Open menu");
  assert.equal(fingerprint(el(doc, "button")).text, "Post");
});
