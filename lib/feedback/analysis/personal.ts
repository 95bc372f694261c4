/**
 * Personal details taken out of a review before anything is derived from it (answer rule 4): emails, web
 * addresses, @handles, phone numbers and the masked author's name become a sentence break, so no topic, phrase or theme label can be
 * built from their words ("shopper@example.com" once made the theme "shopper exampl").
 */
import { maskText } from "../../answers/privacy.ts";

const EMAIL = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
// A web address: a scheme, "www.", or a bare domain with a known-looking top-level part, with its path.
const URL_LIKE =
  /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"')\]]+|\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|net|org|io|app|dev|de|uk|info|biz|xyz|shop)\b(?:[/?#][^\s<>"')\]]*)?/giu;
// @handle (not an email: that went first).
const HANDLE = /(?<![\p{L}\p{N}])@[\p{L}\p{N}_.]+/gu;
// Digits in a run with separators: 7 or more digits is a phone number or an account number, never a theme.
const LONG_NUMBER = /\+?\(?\d[\d\s().\/-]{5,}\d/g;

const BREAK = " ; ";

export function withoutPersonal(text: string): string {
  if (!/[@:.\d[]/.test(text)) return text; // none of these can occur without one of these characters
  let out = text.replace(EMAIL, BREAK).replace(URL_LIKE, BREAK).replace(HANDLE, BREAK);
  out = out.replace(LONG_NUMBER, (m) => (m.replace(/\D/g, "").length >= 7 ? BREAK : m));
  // What the answers' masking knows beyond these (IP addresses, keys) goes too, and the review author's name
  // masked when the review was stored (lib/feedback/author_mask.ts), so "author" never makes a theme.
  return maskText(out).replace(/\[(?:email|phone|card|ip|key|author)\]/g, BREAK);
}
