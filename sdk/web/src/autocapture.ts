/// <reference lib="dom" />
/**
 * $autocapture: clicks on interactive elements, form submits and field changes, with rage clicks
 * (three or more clicks on one element within a second) flagged. A field change inside a form carries the
 * form's fingerprint as well (never values). A click on a non-interactive element
 * is reported only when it is a rage click: that is where visitors expect something to happen.
 */
import { type Fingerprint, fingerprint, formFields, interactiveTarget, isNoCapture } from "./fingerprint.ts";

export type Emit = (properties: Record<string, unknown>, fp: Fingerprint) => void;

const RAGE_WINDOW_MS = 1000;
const RAGE_CLICKS = 3;

/** Counts clicks per element inside a sliding one-second window. */
export class RageDetector {
  private recent: { el: unknown; times: number[] } | null = null;

  /** Records one click; true from the third click on the same element within a second. */
  click(el: unknown, now: number): boolean {
    if (!this.recent || this.recent.el !== el) this.recent = { el, times: [] };
    const times = this.recent.times.filter((t) => now - t < RAGE_WINDOW_MS);
    times.push(now);
    this.recent.times = times;
    return times.length >= RAGE_CLICKS;
  }
}

export function installAutocapture(doc: Document, emit: Emit, now: () => number): void {
  const rage = new RageDetector();

  doc.addEventListener("click", (e) => {
    const raw = e.target as Element | null;
    if (!raw || raw.nodeType !== 1 || isNoCapture(raw)) return;
    const target = interactiveTarget(raw);
    const el = target ?? raw;
    const isRage = rage.click(el, now());
    if (!target && !isRage) return;
    emit({ action: "click", rage_click: isRage }, fingerprint(el));
  }, true);

  doc.addEventListener("submit", (e) => {
    const form = e.target as Element | null;
    if (!form || isNoCapture(form)) return;
    emit({ action: "submit", rage_click: false, form: { fields: formFields(form) } }, fingerprint(form));
  }, true);

  doc.addEventListener("change", (e) => {
    const field = e.target as Element | null;
    if (!field || field.nodeType !== 1 || isNoCapture(field)) return;
    const form = field.closest("form");
    // Inside a form the change also names the form (the fingerprint its submit sends), so a form's starts
    // and submits meet on one element; a field outside any form names nothing more.
    const info = form && !isNoCapture(form)
      ? { fields: formFields(form), fingerprint: fingerprint(form) }
      : { fields: formFields(field) };
    emit({ action: "change", rage_click: false, form: info }, fingerprint(field));
  }, true);
}
