/** Review #12: stored paths are shown to people decoded where decoding is safe (lib/url_path.ts shownPath). */
import assert from "node:assert/strict";
import { shownPath, urlPath } from "../../lib/url_path.ts";

Deno.test("shownPath decodes readable UTF-8 and inner spaces, and keeps escapes that carry meaning", () => {
  const cases: [string, string][] = [
    ["/caf%C3%A9", "/café"],
    ["/a%20b", "/a b"],
    ["/Home%20Screen", "/Home Screen"],
    ["/%E6%97%A5%E6%9C%AC/%F0%9F%98%80", "/日本/😀"],
    ["/a%2Fb", "/a%2Fb"], // a slash inside a segment is no separator
    ["/100%25", "/100%25"], // decoding would make "/100%" and "/a%2520" read as escapes
    ["/a%2520b", "/a%2520b"],
    ["/q%3Fx%23y", "/q%3Fx%23y"],
    ["/trailing%20", "/trailing%20"], // a space at the end would be invisible
    ["/%E2%80%AEevil", "/%E2%80%AEevil"], // a bidi override: a format character
    ["/%E2%80%8Bzw", "/%E2%80%8Bzw"], // a zero-width space
    ["/%C2%A0nb", "/%C2%A0nb"], // a no-break space reads as a space
    ["/%C3", "/%C3"], // cut UTF-8
    ["/%FF%C3%A9", "/%FFé"],
    ["/%0A", "/%0A"],
    ["/plain", "/plain"],
    ["/a%EF%BC%8Fb", "/a%EF%BC%8Fb"], // a fullwidth solidus would read as a separator
    ["/a%E2%88%95b", "/a%E2%88%95b"], // so would a division slash
  ];
  for (const [stored, shown] of cases) assert.equal(shownPath(stored), shown, stored);
});

Deno.test("a shown path spells the same stored path: inputs in either spelling match", () => {
  for (const p of ["/café", "/a b", "/Home Screen", "/日本/😀", "/a%2Fb", "/100%25"]) {
    const stored = urlPath(p);
    assert.equal(urlPath(shownPath(stored)), stored, p);
  }
});
