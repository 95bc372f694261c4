/**
 * A readable element name from an `$autocapture` fingerprint (spec: BehaviorEvent.fingerprint):
 * its visible text, else its ARIA role with the tag, else `#id`, else the tag. Only a control a person
 * clicks to act (a link, a button, a summary, a label, or an element with such a role) is named by its text:
 * the text of anything else is content, and may be what the visitor typed or their own data (a paragraph
 * triple-clicked to select it, a rich-text editor inside a form, an address on an account page). Form controls
 * never contribute text, and text that looks like personal data is skipped, so no input value can
 * become a name even when a client forgets to mask it.
 */
export const MAX_ELEMENT_NAME = 60;

// Controls whose "text" could be what a person typed or chose.
const VALUE_TAGS = new Set(["input", "textarea", "select", "option"]);
// What a person clicks to act: its text is a label the site wrote.
const ACTION_TAGS = new Set(["a", "button", "summary", "label"]);
const ACTION_ROLES = new Set([
  "button",
  "link",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "checkbox",
  "radio",
  "switch",
  "treeitem",
]);
// An e-mail address, or a long run of digits (card, phone, account numbers).
const PERSONAL = /[^\s@]+@[^\s@]+\.[^\s@]+|\d(?:[\s.-]?\d){8,}/;

// Only a text's start can become a name; the personal-data check reads a little past the cut, so nothing
// hidden by the cut is judged and the work stays bounded whatever length a client sends.
const LOOK_CODE_POINTS = 4 * MAX_ELEMENT_NAME;

/** The string's first LOOK_CODE_POINTS code points, spaces collapsed and trimmed; null when empty. */
function str(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const head = Array.from(v.slice(0, 8 * LOOK_CODE_POINTS).replace(/\s+/g, " ").trim())
    .slice(0, LOOK_CODE_POINTS).join("");
  const s = head.isWellFormed() ? head : head.toWellFormed();
  return s === "" ? null : s;
}

/** Cut to MAX_ELEMENT_NAME code points (a surrogate pair is never split). */
function cut(s: string): string {
  const chars = Array.from(s);
  return chars.length > MAX_ELEMENT_NAME ? chars.slice(0, MAX_ELEMENT_NAME - 1).join("").trimEnd() + "…" : s;
}

const tagOf = (fingerprint: Record<string, unknown>) => {
  const tagRaw = str(fingerprint.tag)?.toLowerCase() ?? null;
  return tagRaw && /^[a-z][a-z0-9-]*$/.test(tagRaw) ? tagRaw : null;
};

/** Whether the fingerprint is of something a person clicks to act, whose text the site wrote. */
const actsOn = (fingerprint: Record<string, unknown>, tag: string | null) => {
  const role = str(fingerprint.role)?.toLowerCase();
  return (tag !== null && ACTION_TAGS.has(tag)) || (role !== undefined && ACTION_ROLES.has(role));
};

/**
 * The fingerprint as stored: the text of what is not an action element (content, a form around what was
 * typed) is never kept, whatever the client sent; the rest (tag, role, id, classes, selector) stays.
 */
export function storedFingerprint(
  fingerprint: Record<string, unknown> | null | undefined,
): Record<string, unknown> | null {
  if (!fingerprint || typeof fingerprint !== "object" || Array.isArray(fingerprint)) {
    return fingerprint ?? null;
  }
  if (fingerprint.text === undefined || fingerprint.text === null) return fingerprint;
  return actsOn(fingerprint, tagOf(fingerprint)) ? fingerprint : { ...fingerprint, text: null };
}

/** The name a fingerprint's text gives it, or null: only an action element's text, never personal-looking. */
function textName(fingerprint: Record<string, unknown>, tag: string | null): string | null {
  const text = str(fingerprint.text);
  if (!text || !actsOn(fingerprint, tag) || (tag && VALUE_TAGS.has(tag)) || PERSONAL.test(text)) return null;
  return cut(text);
}

const roleName = (role: string, tag: string | null) => cut(tag && tag !== role ? `${role} (${tag})` : role);

export function elementName(fingerprint: Record<string, unknown> | null | undefined): string | null {
  if (!fingerprint || typeof fingerprint !== "object") return null;
  const tag = tagOf(fingerprint);

  const byText = textName(fingerprint, tag);
  if (byText) return byText;

  const role = str(fingerprint.role)?.toLowerCase();
  if (role) return roleName(role, tag);

  const id = str(fingerprint.id);
  if (id) return cut(`#${id}`);

  return tag;
}

/**
 * Property ingest sets on an `$autocapture` event with an element: the element's name without its text. For an
 * element named by its text (`elementName`), its `#id`, else its ARIA role with the tag, else the tag; for any
 * other element its name itself. behavior_features names an element by its text only where 5 or more visitors
 * used that text, else by this (an account menu button labelled with the signed-in person's own name).
 */
export const ELEMENT_PLAIN = "element_plain";

/** The element's name that never holds its text (see ELEMENT_PLAIN); null when it has no name. */
export function plainElementName(fingerprint: Record<string, unknown> | null | undefined): string | null {
  if (!fingerprint || typeof fingerprint !== "object" || Array.isArray(fingerprint)) return null;
  const tag = tagOf(fingerprint);
  if (!textName(fingerprint, tag)) return elementName(fingerprint);
  const id = str(fingerprint.id);
  if (id) return cut(`#${id}`);
  const role = str(fingerprint.role)?.toLowerCase();
  return role ? roleName(role, tag) : tag;
}

/**
 * An `$autocapture` event's properties with `element_plain` (ELEMENT_PLAIN) from its fingerprint. The server
 * owns that property: without a name it is left out, whatever the client sent under that name. Other events'
 * properties are the caller's and stay as they are.
 */
export function withPlainElement(
  eventType: string,
  fingerprint: Record<string, unknown> | null | undefined,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  if (eventType !== "$autocapture") return properties;
  const name = plainElementName(fingerprint);
  if (name === null && !(ELEMENT_PLAIN in properties)) return properties;
  const { [ELEMENT_PLAIN]: _, ...rest } = properties;
  return name === null ? rest : { ...rest, [ELEMENT_PLAIN]: name };
}

/** Property ingest sets on an `$autocapture` event: the name of the form its `form.fingerprint` describes. */
export const FORM_ELEMENT = "form_element";

/**
 * An `$autocapture` event's properties with `form_element` named from `form.fingerprint` (the form a changed
 * field belongs to, or the submitted form) the way `element` is named from `fingerprint`. The server owns
 * that property: without a usable fingerprint it is left out, whatever the client sent under that name.
 * Other events' properties are the caller's and stay as they are.
 */
export function withFormElement(
  eventType: string,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  if (eventType !== "$autocapture") return properties;
  const form = properties.form;
  const fp = form && typeof form === "object" && !Array.isArray(form)
    ? (form as Record<string, unknown>).fingerprint
    : null;
  const name = fp && typeof fp === "object" && !Array.isArray(fp)
    ? elementName(fp as Record<string, unknown>)
    : null;
  if (name === null && !(FORM_ELEMENT in properties)) return properties;
  const { [FORM_ELEMENT]: _, ...rest } = properties;
  // the form's own text is not kept either (it may hold what was typed into it): see `storedFingerprint`
  const kept = name === null ? fp : storedFingerprint(fp as Record<string, unknown>);
  if (kept !== fp) rest.form = { ...(form as Record<string, unknown>), fingerprint: kept };
  return name === null ? rest : { ...rest, [FORM_ELEMENT]: name };
}
