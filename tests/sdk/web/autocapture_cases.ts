/**
 * Web SDK autocapture on a parsed page: a field change inside a form names the form with the fingerprint its
 * submit sends; a field outside any form, and a data-no-capture field, do not.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { installAutocapture } from "../../../sdk/web/src/autocapture.ts";
import type { Fingerprint } from "../../../sdk/web/src/fingerprint.ts";

function page(body: string) {
  const { document, Event } = parseHTML(`<!doctype html><html><body>${body}</body></html>`);
  const sent: Array<{ props: Record<string, unknown>; fp: Fingerprint }> = [];
  installAutocapture(document as unknown as Document, (props, fp) => sent.push({ props, fp }), () => 0);
  const fire = (sel: string, type: string) =>
    document.querySelector(sel)!.dispatchEvent(new Event(type, { bubbles: true }));
  return { sent, fire };
}

const BODY =
  `<form id="signup"><label>Your e-mail <input id="email" name="email" type="email" value="ann@example.com">
  </label><input id="ssn" name="ssn" data-no-capture value="123"><button type="submit">Sign up</button></form>
  <input id="search" name="q" value="shoes">`;

Deno.test("web-sdk autocapture: a change inside a form carries the form's fingerprint, the one its submit sends", () => {
  const { sent, fire } = page(BODY);
  fire("#email", "change");
  fire("#signup", "submit");
  assert.equal(sent.length, 2);
  const [change, submit] = sent;
  assert.equal(change.props.action, "change");
  assert.equal(change.fp.id, "email");
  const form = change.props.form as { fields: unknown; fingerprint?: Fingerprint };
  assert.equal(submit.props.action, "submit");
  assert.equal(submit.fp.id, "signup");
  assert.deepEqual(form.fingerprint, submit.fp);
  assert.deepEqual(form.fields, [{ name: "email", type: "email" }]);
  assert.ok(!JSON.stringify(sent).includes("ann@example.com"), "no value leaves the page");
});

Deno.test("web-sdk autocapture: a change outside any form names no form; a data-no-capture field sends nothing", () => {
  const { sent, fire } = page(BODY);
  fire("#search", "change");
  fire("#ssn", "change");
  assert.equal(sent.length, 1);
  assert.equal(sent[0].fp.id, "search");
  assert.deepEqual(sent[0].props.form, { fields: [{ name: "q", type: "text" }] });
  assert.ok(!JSON.stringify(sent).includes("shoes"));
});
