/**
 * Public suffixes: names under which unrelated parties register their own domains ("com", "co.uk",
 * "github.io"). Claiming one as a website or verified domain would claim every site under it (ingest origins,
 * own apps of answer rule 3), so they are refused. A small hand-written rule, not the Public Suffix List:
 *
 * 1. a single label (a top-level domain: "com", "de", "localhost");
 * 2. two labels: a generic second-level word ("co", "com", "org", "ac", "gov", …) under a two-letter country
 *    code ("co.uk", "com.au", "ac.jp", "com.br");
 * 3. a few hosting platforms whose subdomains belong to their customers ("github.io", "pages.dev", …).
 *
 * Rarer registries' suffixes (three labels, or other words) pass; a domain under them is still only someone's
 * claim until it is verified by its TXT record.
 */

const GENERIC_SECOND_LEVEL = new Set([
  "ac",
  "co",
  "com",
  "edu",
  "go",
  "gob",
  "gov",
  "ltd",
  "mil",
  "ne",
  "net",
  "nom",
  "or",
  "org",
  "plc",
  "sch",
]);

const SHARED_HOSTING = new Set([
  "appspot.com",
  "azurewebsites.net",
  "blogspot.com",
  "cloudfront.net",
  "deno.dev",
  "firebaseapp.com",
  "fly.dev",
  "github.io",
  "gitlab.io",
  "herokuapp.com",
  "netlify.app",
  "onrender.com",
  "pages.dev",
  "vercel.app",
  "web.app",
  "workers.dev",
]);

/** Whether a lower-case host name (no port, no trailing dot) is a public suffix by the rule above. */
export function isPublicSuffix(domain: string): boolean {
  const labels = domain.split(".");
  if (labels.length === 1) return true;
  if (labels.length === 2 && /^[a-z]{2}$/.test(labels[1]) && GENERIC_SECOND_LEVEL.has(labels[0])) return true;
  return SHARED_HOSTING.has(domain);
}

/** The 422 text for a domain that is a public suffix (the caller puts the field name before it). */
export const publicSuffixMessage = (domain: string) =>
  `"${domain}" is a public suffix (others register their own domains under it): give your site's own ` +
  `domain, such as shop.example.${domain}`;
