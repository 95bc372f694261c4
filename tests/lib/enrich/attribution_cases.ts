import assert from "node:assert/strict";
import fc from "fast-check";
import { attribute, type AttributionInput, attributionInputOf } from "../../../lib/enrich/attribution.ts";

const PAGE = "https://acme.test/pricing";
const from = (referrer: string | null, url = PAGE, more: Partial<AttributionInput> = {}) =>
  attribute({ referrer, url, pageHost: "acme.test", ...more });
const pick = (a: ReturnType<typeof attribute>) => [a.channel, a.source];

Deno.test("attribution: no referrer and no tags is Direct", () => {
  assert.deepEqual(from(null), { referrer_host: null, source: "(direct)", channel: "Direct", utm: null });
  assert.deepEqual(from(""), { referrer_host: null, source: "(direct)", channel: "Direct", utm: null });
  assert.deepEqual(pick(from("not a url")), ["Direct", "(direct)"]);
});

Deno.test("attribution: a referrer from the site itself or its subdomains is ignored", () => {
  assert.deepEqual(pick(from("https://acme.test/")), ["Direct", "(direct)"]);
  assert.deepEqual(pick(from("https://www.acme.test/blog")), ["Direct", "(direct)"]);
  assert.deepEqual(pick(from("https://blog.acme.test/post")), ["Direct", "(direct)"]);
  const tagged = from("https://acme.test/", `${PAGE}?utm_source=newsletter&utm_medium=email`);
  assert.deepEqual([tagged.channel, tagged.source, tagged.referrer_host], ["Email", "newsletter", null]);
});

Deno.test("attribution: search engines are Organic Search under a short name", () => {
  for (
    const [ref, name] of [
      ["https://www.google.com/", "google"],
      ["https://www.google.co.uk/", "google"],
      ["https://news.google.com/stories", "google"],
      ["https://www.bing.com/search?q=x", "bing"],
      ["https://duckduckgo.com/", "duckduckgo"],
      ["https://search.yahoo.co.jp/", "yahoo"],
      ["https://yandex.ru/search", "yandex"],
      ["https://www.baidu.com/", "baidu"],
      ["https://www.ecosia.org/", "ecosia"],
      ["https://search.brave.com/search?q=x", "brave"],
      ["https://kagi.com/search?q=x", "kagi"],
      ["android-app://com.google.android.googlequicksearchbox/", "google"],
    ]
  ) assert.deepEqual(pick(from(ref)), ["Organic Search", name], ref);
  assert.equal(from("https://www.google.com/").referrer_host, "www.google.com");
});

Deno.test("attribution: social networks are Organic Social", () => {
  for (
    const [ref, name] of [
      ["https://l.facebook.com/", "facebook"],
      ["https://m.facebook.com/", "facebook"],
      ["https://www.instagram.com/", "instagram"],
      ["https://t.co/abc", "x"],
      ["https://x.com/someone", "x"],
      ["https://twitter.com/", "x"],
      ["https://www.linkedin.com/feed/", "linkedin"],
      ["https://lnkd.in/xyz", "linkedin"],
      ["https://old.reddit.com/r/deno", "reddit"],
      ["https://www.youtube.com/", "youtube"],
      ["https://www.tiktok.com/", "tiktok"],
      ["https://www.pinterest.de/", "pinterest"],
      ["https://news.ycombinator.com/item?id=1", "hacker news"],
      ["https://bsky.app/profile/x", "bluesky"],
    ]
  ) assert.deepEqual(pick(from(ref)), ["Organic Social", name], ref);
});

Deno.test("attribution: AI answer engines are their own channel, by referrer or by utm_source", () => {
  for (
    const [ref, name] of [
      ["https://chatgpt.com/", "chatgpt"],
      ["https://chat.openai.com/", "chatgpt"],
      ["https://www.perplexity.ai/search/x", "perplexity"],
      ["https://claude.ai/", "claude"],
      ["https://gemini.google.com/app", "gemini"],
      ["https://copilot.microsoft.com/", "copilot"],
      ["https://chat.deepseek.com/", "deepseek"],
      ["https://chat.mistral.ai/chat", "mistral"],
      ["https://you.com/search?q=x", "you.com"],
      ["https://www.phind.com/", "phind"],
      ["https://kagi.com/assistant", "kagi assistant"],
    ]
  ) assert.deepEqual(pick(from(ref)), ["AI Assistant", name], ref);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=chatgpt.com`)), ["AI Assistant", "chatgpt"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=perplexity&utm_medium=referral`)), [
    "AI Assistant",
    "perplexity",
  ]);
});

Deno.test("attribution: paid mediums split into Paid Search and Paid Social by source", () => {
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=google&utm_medium=cpc`)), ["Paid Search", "google"]);
  assert.deepEqual(pick(from("https://www.bing.com/", `${PAGE}?utm_source=bing&utm_medium=ppc`)), [
    "Paid Search",
    "bing",
  ]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=facebook&utm_medium=paid`)), [
    "Paid Social",
    "facebook",
  ]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=ig&utm_medium=cpc`)), ["Paid Social", "instagram"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=adnet&utm_medium=paid_social`)), [
    "Paid Social",
    "adnet",
  ]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=adnet&utm_medium=cpc`)), ["Paid Search", "adnet"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=adnet&utm_medium=cpm`)), ["Referral", "adnet"]);
});

Deno.test("attribution: ad-click ids count as paid clicks without becoming UTM tags", () => {
  const g = from("https://www.google.com/", `${PAGE}?gclid=abc`);
  assert.deepEqual([g.channel, g.source, g.utm], ["Paid Search", "google", null]);
  assert.deepEqual(pick(from(null, `${PAGE}?msclkid=abc`)), ["Paid Search", "bing"]);
  assert.deepEqual(pick(from(null, `${PAGE}?fbclid=abc`)), ["Organic Social", "facebook"]);
  assert.deepEqual(pick(from(null, `${PAGE}?ref=producthunt`)), ["Referral", "producthunt"]);
});

Deno.test("attribution: email mediums, newsletters and webmail are Email", () => {
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=weekly-digest&utm_medium=email`)), [
    "Email",
    "weekly-digest",
  ]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=acme&utm_medium=newsletter`)), ["Email", "acme"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=newsletter`)), ["Email", "newsletter"]);
  assert.deepEqual(pick(from("https://mail.google.com/mail/u/0/")), ["Email", "gmail"]);
  assert.deepEqual(pick(from("android-app://com.google.android.gm/")), ["Email", "gmail"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_medium=email`)), ["Email", "(not set)"]);
});

Deno.test("attribution: any other site is a Referral named by its host without www", () => {
  const a = from("https://www.example.org/post/1?x=y");
  assert.deepEqual(a, {
    referrer_host: "www.example.org",
    source: "example.org",
    channel: "Referral",
    utm: null,
  });
  assert.deepEqual(pick(from("https://docs.google.com/document/d/1")), ["Referral", "docs.google.com"]);
  assert.deepEqual(pick(from(null, `${PAGE}?utm_source=Partner.Example.com&utm_medium=referral`)), [
    "Referral",
    "partner.example.com",
  ]);
});

Deno.test("attribution: UTM tags are kept whole; separate utm properties win over the URL's", () => {
  const a = from(
    null,
    `${PAGE}?utm_source=google&utm_medium=cpc&utm_campaign=Spring%20Sale&utm_term=crm&utm_content=a`,
  );
  assert.deepEqual(a.utm, {
    source: "google",
    medium: "cpc",
    campaign: "Spring Sale",
    term: "crm",
    content: "a",
  });
  const b = from(null, `${PAGE}?utm_source=google&utm_medium=cpc`, {
    utm: { source: "linkedin", medium: "paid" },
  });
  assert.deepEqual(pick(b), ["Paid Social", "linkedin"]);
  assert.deepEqual(b.utm, { source: "linkedin", medium: "paid", campaign: null, term: null, content: null });
});

Deno.test("attribution: the last touch answers only when the event carries nothing of its own", () => {
  const lastTouch = {
    source: "google",
    medium: "cpc",
    campaign: "brand",
    term: null,
    content: null,
    referrer_host: "www.google.com",
    landing_path: "/",
  };
  const a = from(null, PAGE, { lastTouch });
  assert.deepEqual([a.channel, a.source, a.referrer_host], ["Paid Search", "google", "www.google.com"]);
  assert.deepEqual(a.utm, { source: "google", medium: "cpc", campaign: "brand", term: null, content: null });
  assert.deepEqual(pick(from("https://t.co/x", PAGE, { lastTouch })), ["Organic Social", "x"]);
  assert.deepEqual(pick(from(null, PAGE, { lastTouch: { referrer_host: "news.ycombinator.com" } })), [
    "Organic Social",
    "hacker news",
  ]);
  assert.deepEqual(pick(from(null, PAGE, { lastTouch: { referrer_host: "acme.test" } })), [
    "Direct",
    "(direct)",
  ]);
});

Deno.test("attribution: the page host comes from the URL when not given, and may be an origin", () => {
  assert.deepEqual(pick(attribute({ referrer: "https://acme.test/a", url: PAGE, pageHost: null })), [
    "Direct",
    "(direct)",
  ]);
  assert.deepEqual(
    pick(attribute({ referrer: "https://acme.test/a", url: null, pageHost: "https://acme.test:8443" })),
    ["Direct", "(direct)"],
  );
});

Deno.test("attribution: any input gives one of the eight channels and a non-empty source, never an error", () => {
  const channels = [
    "Direct",
    "Organic Search",
    "Paid Search",
    "Organic Social",
    "Paid Social",
    "Email",
    "Referral",
    "AI Assistant",
  ];
  const maybe = (arb: fc.Arbitrary<string>) => fc.option(arb, { nil: null });
  const urlish = fc.oneof(fc.webUrl({ withQueryParameters: true }), fc.string());
  fc.assert(
    fc.property(maybe(urlish), maybe(urlish), maybe(fc.domain()), maybe(fc.string()), maybe(fc.string()), (
      referrer,
      url,
      pageHost,
      source,
      medium,
    ) => {
      const a = attribute({ referrer, url, pageHost, utm: { source, medium } });
      assert.ok(channels.includes(a.channel));
      assert.ok(a.source.length > 0);
      assert.equal(a.channel === "Direct" ? a.referrer_host : null, null);
    }),
  );
});

Deno.test("attribution: an event's properties and context give the input by the event conventions", () => {
  const ev = {
    properties: {
      path: "/pricing",
      url: "https://acme.test/pricing?utm_source=google",
      referrer: "https://www.google.com/",
      utm_medium: "cpc",
      utm_campaign: 42, // not a string: ignored
    },
    context: { last_touch: { source: "x", medium: "social" } },
  };
  const input = attributionInputOf(ev);
  assert.deepEqual(input.utm, { source: null, medium: "cpc", campaign: null, term: null, content: null });
  const a = attribute(input);
  assert.deepEqual([a.channel, a.source, a.referrer_host], ["Paid Search", "google", "www.google.com"]);
  assert.deepEqual(a.utm, { source: "google", medium: "cpc", campaign: null, term: null, content: null });
  const fallback = attribute(
    attributionInputOf({ properties: { url: "https://acme.test/" }, context: ev.context }),
  );
  assert.deepEqual(pick(fallback), ["Organic Social", "x"]);
  assert.equal(attributionInputOf({ properties: {}, context: { last_touch: "junk" } }).lastTouch, null);
});
