import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decide, type ReportCandidate, type SkipReason } from "../src/index.ts";
import { CHROME, GOOGLEBOT, seen, type SeenOptions } from "./support.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)";

type Row = [
  title: string,
  path: string,
  ua: string | null,
  options: SeenOptions,
  expected: SkipReason | "report",
];

/** All rules together: each row changes one thing from a reported crawler page view. */
const ROWS: Row[] = [
  [
    "a crawler GET of an HTML page is reported",
    "/pricing",
    GOOGLEBOT,
    {},
    "report",
  ],
  ["HEAD counts like GET", "/pricing", GOOGLEBOT, { method: "HEAD" }, "report"],
  [
    "lower-case method still counts",
    "/pricing",
    GOOGLEBOT,
    { method: "get" },
    "report",
  ],
  [
    "POST is not a page read",
    "/pricing",
    GOOGLEBOT,
    { method: "POST" },
    "method",
  ],
  [
    "OPTIONS is not a page read",
    "/pricing",
    GOOGLEBOT,
    { method: "OPTIONS" },
    "method",
  ],
  [
    "PUT is not a page read",
    "/pricing",
    GOOGLEBOT,
    { method: "PUT" },
    "method",
  ],
  ["an asset is skipped", "/app.js", GOOGLEBOT, {
    contentType: "text/javascript",
  }, "path"],
  [
    "an image is skipped even when served as HTML",
    "/logo.png",
    GOOGLEBOT,
    {},
    "path",
  ],
  ["an API path is skipped", "/api/users", GOOGLEBOT, {
    contentType: "application/json",
  }, "path"],
  ["a health endpoint is skipped", "/healthz", GOOGLEBOT, {
    contentType: "text/plain",
  }, "path"],
  [
    "the query does not change the path kind",
    "/search?q=shoes.png",
    GOOGLEBOT,
    {},
    "report",
  ],
  ["a page answered with JSON is skipped", "/pricing", GOOGLEBOT, {
    contentType: "application/json",
  }, "content_type"],
  ["a page answered with plain text is skipped", "/about", GOOGLEBOT, {
    contentType: "text/plain",
  }, "content_type"],
  ["XHTML counts as HTML", "/about", GOOGLEBOT, {
    contentType: "application/xhtml+xml",
  }, "report"],
  ["HTML with parameters counts", "/about", GOOGLEBOT, {
    contentType: "Text/HTML;charset=UTF-8",
  }, "report"],
  [
    "an unknown content type counts",
    "/about",
    GOOGLEBOT,
    { contentType: null },
    "report",
  ],
  ["a 304 without content type counts", "/about", GOOGLEBOT, {
    status: 304,
    contentType: null,
  }, "report"],
  ["a 404 HTML page counts", "/gone", GOOGLEBOT, { status: 404 }, "report"],
  ["a 301 counts whatever the type", "/old", GOOGLEBOT, {
    status: 301,
    contentType: "text/plain",
  }, "report"],
  ["a 308 counts whatever the type", "/old", GOOGLEBOT, {
    status: 308,
    contentType: "application/json",
  }, "report"],
  ["robots.txt counts as text/plain", "/robots.txt", GPTBOT, {
    contentType: "text/plain",
  }, "report"],
  ["llms.txt counts as text/markdown", "/llms.txt", GPTBOT, {
    contentType: "text/markdown",
  }, "report"],
  ["llms-full.txt counts", "/llms-full.txt", GPTBOT, {
    contentType: "text/plain",
  }, "report"],
  ["sitemap.xml counts as XML", "/sitemap.xml", GOOGLEBOT, {
    contentType: "application/xml",
  }, "report"],
  ["gzipped sitemap counts", "/sitemap-2.xml.gz", GOOGLEBOT, {
    contentType: "application/gzip",
  }, "report"],
  ["a browser is not reported", "/pricing", CHROME, {}, "browser"],
  [
    "a request without user agent is never reported",
    "/pricing",
    null,
    {},
    "no_user_agent",
  ],
  [
    "an empty user agent is never reported",
    "/pricing",
    "",
    {},
    "no_user_agent",
  ],
  ["kube-probe is never reported", "/", "kube-probe/1.29", {}, "health_probe"],
  [
    "ELB-HealthChecker is never reported",
    "/",
    "ELB-HealthChecker/2.0",
    {},
    "health_probe",
  ],
  ["curl is reported", "/pricing", "curl/8.5.0", {}, "report"],
];

describe("reporting rules: one change at a time", () => {
  for (const [title, path, ua, options, expected] of ROWS) {
    test(title, () => {
      const [req, res] = seen(path, ua, options);
      const decision = decide(req, res, { ignorePaths: [] });
      assert.deepEqual(
        decision,
        expected === "report" ? { report: true } : { report: false, reason: expected },
      );
    });
  }
});

describe("reporting rules: shouldReport runs last", () => {
  test("returning false drops the hit", () => {
    const [req, res] = seen("/pricing", GOOGLEBOT);
    assert.deepEqual(
      decide(req, res, { ignorePaths: [], shouldReport: () => false }),
      {
        report: false,
        reason: "should_report",
      },
    );
  });

  test("a callback that throws drops the hit and the error stays inside", () => {
    const [req, res] = seen("/pricing", GOOGLEBOT);
    const shouldReport = () => {
      throw new Error("boom");
    };
    assert.deepEqual(decide(req, res, { ignorePaths: [], shouldReport }), {
      report: false,
      reason: "should_report",
    });
  });

  test("returning true keeps it, and the callback sees the candidate", () => {
    const seenCandidates: ReportCandidate[] = [];
    const [req, res] = seen("/pricing?utm_source=x", GOOGLEBOT, {
      method: "head",
      status: 200,
    });
    const decision = decide(req, res, {
      ignorePaths: [],
      shouldReport: (c) => (seenCandidates.push(c), true),
    });
    assert.deepEqual(decision, { report: true });
    assert.equal(seenCandidates.length, 1);
    const c = seenCandidates[0];
    assert.deepEqual([c.method, c.path, c.status, c.userAgent, c.pathKind], [
      "HEAD",
      "/pricing",
      200,
      GOOGLEBOT,
      "page",
    ]);
  });

  test("it is not called for a request an earlier rule already dropped", () => {
    let calls = 0;
    const [req, res] = seen("/pricing", CHROME);
    decide(req, res, { ignorePaths: [], shouldReport: () => (calls++, true) });
    assert.equal(calls, 0);
  });
});

test("reporting rules: configured ignorePaths drop the hit", () => {
  const [req, res] = seen("/admin/login", GOOGLEBOT);
  assert.deepEqual(decide(req, res, { ignorePaths: ["/admin"] }), {
    report: false,
    reason: "path",
  });
});
