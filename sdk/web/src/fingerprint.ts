/// <reference lib="dom" />
/**
 * Describes a clicked or submitted element for the service (BehaviorEvent.fingerprint): tag, visible
 * text (truncated, masked), role or type, id, classes, a best-effort selector and its position among
 * siblings. Never reads what a visitor typed: input values are not text, and subtrees marked
 * `data-no-capture` are left out.
 */
import { cleanText, maskText } from "./mask.ts";

export interface Fingerprint {
  tag: string;
  text: string | null;
  role: string | null;
  id: string | null;
  classes: string[] | null;
  selector: string;
  ordinal: number;
  href?: string;
}

export interface FormField {
  name: string;
  type: string;
}

const INTERACTIVE = "a,button,input,select,textarea,label,summary,option," +
  "[role=button],[role=link],[role=menuitem],[role=tab],[role=checkbox],[role=switch],[role=option]";
const NO_CAPTURE = "[data-no-capture]";
const LABEL_INPUT_TYPES = ["submit", "button", "reset"];
const SKIP_TEXT_TAGS = ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "INPUT", "TEXTAREA", "SELECT", "SVG"];

const tagOf = (el: Element) => el.tagName.toLowerCase();

/** True when the element or one of its ancestors is marked `data-no-capture`. */
export function isNoCapture(el: Element): boolean {
  return el.closest(NO_CAPTURE) !== null;
}

/** The element a click is about: the nearest interactive ancestor (or the element itself). */
export function interactiveTarget(el: Element): Element | null {
  return el.closest(INTERACTIVE);
}

/** Text a visitor sees on the element, without input values or `data-no-capture` subtrees. */
function ownText(el: Element, budget = 400): string {
  let out = "";
  const walk = (node: Node) => {
    for (let n = node.firstChild; n && out.length < budget; n = n.nextSibling) {
      if (n.nodeType === 3) out += n.nodeValue ?? "";
      else if (n.nodeType === 1) {
        const child = n as Element;
        // what a visitor types into a rich-text editor is theirs, as an input's value is
        if (
          SKIP_TEXT_TAGS.includes(child.tagName.toUpperCase()) || child.hasAttribute("data-no-capture") ||
          child.hasAttribute("contenteditable") ||
          /^(textbox|combobox|searchbox)$/i.test(child.getAttribute("role") ?? "")
        ) {
          continue;
        }
        out += " ";
        walk(child);
      }
    }
  };
  walk(el);
  return out;
}

export function visibleText(el: Element): string | null {
  const tag = tagOf(el);
  if (tag === "input") {
    const type = (el.getAttribute("type") ?? "text").toLowerCase();
    // Only a button-like input shows its value as a label; any other value is what a visitor typed.
    if (LABEL_INPUT_TYPES.includes(type)) return cleanText(el.getAttribute("value") ?? type);
    return cleanText(el.getAttribute("aria-label"));
  }
  if (tag === "textarea" || tag === "select") return cleanText(el.getAttribute("aria-label"));
  return cleanText(ownText(el)) ?? cleanText(el.getAttribute("aria-label")) ??
    cleanText(el.getAttribute("title")) ?? cleanText(el.querySelector("img[alt]")?.getAttribute("alt"));
}

/** 1-based position among siblings with the same tag (what `:nth-of-type` counts). */
export function ordinalOf(el: Element): number {
  let n = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) n++;
  return n;
}

function hasSameTagSibling(el: Element): boolean {
  const parent = el.parentElement;
  if (!parent) return false;
  for (let s = parent.firstElementChild; s; s = s.nextElementSibling) {
    if (s !== el && s.tagName === el.tagName) return true;
  }
  return false;
}

/** Escapes an identifier for a CSS selector (CSS.escape is missing in some runtimes). */
export function cssIdent(s: string): string {
  const body = s.replace(/[^\w-]/g, (c) => "\\" + c);
  return /^\d/.test(body) ? "\\3" + body[0] + " " + body.slice(1) : body;
}

/** Classes worth naming: no generated or state-looking tokens, at most 10. */
export function stableClasses(el: Element): string[] {
  const raw = (el.getAttribute("class") ?? "").split(/\s+/);
  return raw.filter((c) => /^[A-Za-z_-][\w-]{0,39}$/.test(c) && !/\d{3,}/.test(c)).slice(0, 10);
}

const stableId = (id: string) => /^[A-Za-z][\w-]{0,63}$/.test(id) && !/\d{4,}/.test(id);

/** A best-effort CSS selector: up to five steps, anchored at the nearest stable id. */
export function selectorFor(el: Element): string {
  const steps: string[] = [];
  for (let cur: Element | null = el; cur && steps.length < 5; cur = cur.parentElement) {
    const tag = tagOf(cur);
    if (tag === "html") break;
    const id = cur.getAttribute("id");
    if (id && stableId(id)) {
      steps.unshift("#" + cssIdent(id));
      break;
    }
    let step = tag + stableClasses(cur).slice(0, 2).map((c) => "." + cssIdent(c)).join("");
    if (hasSameTagSibling(cur)) step += `:nth-of-type(${ordinalOf(cur)})`;
    steps.unshift(step);
    if (tag === "body") break;
  }
  return steps.join(" > ");
}

/** The fingerprint of one element (the spec's BehaviorEvent.fingerprint). */
export function fingerprint(el: Element): Fingerprint {
  const tag = tagOf(el);
  const classes = stableClasses(el);
  const role = el.getAttribute("role") ??
    (["input", "button"].includes(tag) ? el.getAttribute("type") : null);
  const fp: Fingerprint = {
    tag,
    // only what a person clicks to act is named by its text: anything else's text is content (a paragraph
    // triple-clicked to select it, a form around what was typed, the visitor's own data on the page)
    text: el.matches(INTERACTIVE) ? visibleText(el) : null,
    role: role ? role.toLowerCase() : null,
    id: el.getAttribute("id") ? maskText(el.getAttribute("id")!) : null,
    classes: classes.length ? classes : null,
    selector: maskText(selectorFor(el)),
    ordinal: ordinalOf(el),
  };
  const href = tag === "a" ? el.getAttribute("href") : null;
  // Only the path of a link: its query or fragment may carry personal data.
  if (href && !/^javascript:/i.test(href)) fp.href = maskText(href.split(/[?#]/)[0]).slice(0, 512);
  return fp;
}

/** Field names and types of a form (or of a lone field), never their values. */
export function formFields(root: Element): FormField[] {
  const list = tagOf(root) === "form" ? Array.from(root.querySelectorAll("input,select,textarea")) : [root];
  const fields: FormField[] = [];
  for (const f of list) {
    if (isNoCapture(f)) continue;
    const tag = tagOf(f);
    const type = tag === "input" ? (f.getAttribute("type") ?? "text").toLowerCase() : tag;
    if (LABEL_INPUT_TYPES.includes(type) || type === "image") continue;
    const name = f.getAttribute("name") ?? f.getAttribute("id");
    if (name) fields.push({ name: maskText(name).slice(0, 100), type });
    if (fields.length >= 50) break;
  }
  return fields;
}
