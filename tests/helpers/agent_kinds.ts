/**
 * Real user agents of every kind the classifier tells apart (docs/crawlers.md), for the classifier's own tests
 * and for the ingest endpoints' tests: hand-picked examples in the published default formats of the named
 * software, and crawler agents as crawler lists give them.
 */

/** People's clients, by kind: each must classify "human". */
export const HUMAN_AGENTS: Record<string, string[]> = {
  browser: [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  ],
  "in-app browser": [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 300.0.0.0 (iPhone14,2; iOS 17_1; en_US; en-US; scale=3.00; 1170x2532; 512345678)",
    "[FBAN/FBIOS;FBAV/283.0.0.44.117;FBBV/238386386;FBDV/iPhone12,1;FBMD/iPhone;FBSN/iOS;FBSV/13.6.1;FBSS/2;FBID/phone;FBLC/en_US;FBOP/5]",
  ],
  "native app (Dalvik, CFNetwork, okhttp inside a named app)": [
    "Dalvik/2.1.0 (Linux; U; Android 10; M2006C3MT MIUI/V12.0.7.0.QCRMIXM)",
    "Luminary/70 CFNetwork/978.0.7 Darwin/18.5.0",
    "DAVdroid/1.9.2-gplay (2017/11/04; dav4android; okhttp3) Android/7.1.2",
  ],
  "app name with version": [
    "Hulu/4.27.0 (iPhone; iOS 13.3; Scale/2.00)",
    "ESPN Radio 4.7.4 rv:1032 (iPhone; iPhone OS 9.2.1; en_US)",
    "Viber/13.3.0.5 CFNetwork/1220.1 Darwin/20.3.0",
    "Pandora/1904.1 Android/8.0.0 heroqlteusc (ExoPlayerLib1.5.14.1)",
    // a contact URL does not make an app on a named personal device a crawler
    "PodcastAddict/v5 (+https://podcastaddict.com/; Android podcast app)",
  ],
  "feature phone or WAP browser": [
    "Nokia6300/2.0 (05.00) Profile/MIDP-2.0 Configuration/CLDC-1.1",
    "UCWEB/2.0 (MIDP-2.0; U; zh-CN; HTC EVO 3D X515m) U2/1.0.0 UCBrowser/10.4.0.558 U2/1.0.0 Mobile",
    "NetFront/3.5.1 (BREW 3.1.5; U; en-us; LG; NetFront/3.5.1/WAP) Sprint LN240 MMP/2.0 Profile/MIDP-2.1 Configuration/CLDC-1.1",
    "Opera/9.80 (J2ME/MIDP; Opera Mini/5.1.21214/19.916; U; en) Presto/2.5.25",
    "SAMSUNG-SGH-T419",
    "ZDM/4.0; Windows Mobile 8.1",
  ],
  "text browser": [
    "Lynx/2.8.5dev.16 libwww-FM/2.14 SSL-MM/1.4.1 OpenSSL/0.9.6b",
    "Links (2.29; NetBSD 10.0 i386; GNU C 10.5; x)",
    "ELinks/0.12pre5 (textmode; Linux; 80x24-2)",
    "w3m/0.5.1",
  ],
  "legacy or niche browser": [
    "NCSA_Mosaic/2.0 (Windows 3.1)",
    "AmigaVoyager/3.4.4 (AmigaOS/PPC native)",
    "IBrowse/2.3 (AmigaOS 3.9)",
    "Dillo/2.2",
    "Amaya/9.52 libwww/5.4.0",
  ],
  // Office's and Outlook's own agents (`Microsoft Office/16.0 (…)`, `Outlook-iOS/…`) are automation since the
  // eighth round (docs/crawlers.md): the browser and webviews they open the page in are the person's
  "mail or office client": [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0 OneOutlook/1.2024.619.100",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 9_3_4 like Mac OS X) AppleWebKit/601.1 (KHTML, like Gecko) Outlook-iOS-Android/1.0 Mobile/13G35 Safari/601.1.46",
    "Airmail 1.0 rv:148 (Macintosh; Mac OS X 10.8.3; en_BE)",
    "Lotus-Notes/4.5 ( Windows-NT )",
  ],
  "media player or TV": [
    "Roku/DVP-9.10 (519.10E04111A)",
    "Linux UPnP/1.0 Sonos/29.3-87071 (ICRU_iPhone7,1)",
    "PS4Application libhttp/1.000 (PS4) libhttp/6.72 (PlayStation 4)",
    "QuickTime/7.5.6 (qtver=7.5.6;cpu=IA32;os=Mac 10.5.8)",
    "AppleCoreMedia/1.0.0.15D61 (HomePod; U; CPU OS 11_2_5 like Mac OS X; en_us)",
    "Player/1.0 (Linux;Android 10) ExoPlayerLib/2.11.7",
    // products named for what they play
    "AudiMusicStream/3020.130826151911",
    "Videos/3.8.2",
    "Nero Home/1.5.3.0 (compatible; Nero AG; Nero Home 1.5.3.0)",
  ],
};

/**
 * Automation that names no catalog crawler, by kind: each must classify "automation". (StatusCake, Xenu Link
 * Sleuth and Pocket Casts' feed parser left this list when the catalog took them in from the public crawler
 * lists: tests/routes/agent_kinds_catalog_test.ts has them as named crawlers.)
 */
export const AUTOMATION_AGENTS: Record<string, string[]> = {
  "HTTP library or tool": [
    "curl/8.4.0",
    "Wget/1.21.3",
    "python-requests/2.31.0",
    "Go-http-client/2.0",
    "Java/1.8.0_392",
    "okhttp/4.12.0",
    "Apache-HttpClient/4.5.13 (Java/17.0.8)",
    "Cloudflare-Stream-Hook",
  ],
  "headless browser": [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1",
  ],
  "monitoring or SEO tool": [
    "Mozilla/5.0 (X11; Linux x86_64; Rigor) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.75 Safari/537.36",
  ],
  "contact URL": [
    "Mozilla/5.0 (compatible; Acme/1.0; +https://acme.test/about)",
    // a service's fetcher under an app's name (Overcast's feed parser is a catalog crawler since opawg's list)
    "Pinterest/0.2 (+http://www.pinterest.com/)",
  ],
  "bot, crawler, spider or fetcher word": [
    "Mozilla/5.0 (compatible; MyCoolBot/1.0)",
    "Mozilla/5.0 (compatible; SomeCrawler/2.0)",
    "Mozilla/5.0 (compatible; examplespider)",
    "Mozilla/5.0 (compatible; ThingFetcher/1.0)",
    // a media word does not make a stream service's bot a person
    "Mozilla/5.0 (compatible; StreamBot/1.0)",
  ],
  "self-contradicting browser agent": [
    "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edge/18.19041",
    // a hardware model in place of the device word with an iOS that model never ran (an iPhone 13 shipped with 15)
    "Mozilla/5.0 (iPhone14,2; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  ],
};
