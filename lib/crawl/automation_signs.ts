/**
 * Signs that an agent is automated although it names no crawler of the catalog. Each rule returns the reason
 * it fired, or null. These run before the human-client rules: an agent that says "bot" or names an HTTP
 * library as its product is automated whatever platform it claims.
 */

import { FEATURE_PHONE } from "./human_devices.ts";
import { knownAddOn, knownProductNamedLikeDomain } from "./browser_shape.ts";

/**
 * HTTP libraries and command-line tools, as the agent's own product (its first token). Inside a named app's
 * agent ("MyApp/2.1 (Android 13) okhttp/4.9") the same library is that app's HTTP stack: see human_clients.ts.
 */
const TOOL_PRODUCT = new RegExp(
  "^(?:" + [
    "curl",
    "libcurl",
    "pycurl",
    "wget2?",
    "aria2",
    "python(?:-\\w+)?",
    "aiohttp",
    "httpx",
    "httpie",
    "urllib\\d?",
    "scrapy",
    "mechanize",
    "www-mechanize",
    "lwp",
    "libwww",
    "go-http-client",
    "go-resty",
    "go \\d",
    "fasthttp",
    "java",
    "jakarta",
    "apache-http\\w*",
    "okhttp",
    "ahc",
    "async-http-client",
    "vert\\.x",
    "reactornetty",
    "netty",
    "jersey",
    "google-http-java-client",
    "google-api-\\w+-client",
    "axios",
    "node-fetch",
    "node",
    "undici",
    "got",
    "superagent",
    "request",
    "needle",
    "ky",
    "deno",
    "bun",
    "ruby",
    "faraday",
    "typhoeus",
    "httparty",
    "rest-client",
    "excon",
    "php",
    "guzzlehttp",
    "guzzle",
    "zend_http_client",
    "laminas_http_client",
    "symfony",
    "http_request2?",
    "pear",
    "pecl",
    "wordpress",
    "jetpack",
    "drupal",
    "joomla",
    "dart",
    "reqwest",
    "hyper",
    "ureq",
    "rust",
    "libsoup",
    "restsharp",
    "winhttp",
    "wininet",
    // OS and Office components that fetch certificates and updates or probe a link before a program opens it
    // (uap-core's test data files the first among its crawlers; COUNTER-Robots lists the Office and WebDAV ones)
    "microsoft-cryptoapi",
    "microsoft bits",
    "windows-update-agent",
    "microsoft office (?:existence|protocol) discovery",
    "microsoft url control",
    "microsoft-webdav-miniredir",
    "postmanruntime",
    "postman",
    "insomnia",
    "paw",
    "rapidapi",
    "k6",
    "jmeter",
    "apachebench",
    "ab",
    "siege",
    "locust",
    "gatling",
    "artillery",
    "vegeta",
    "hey",
    "wrk",
    "nmap",
    "masscan",
    "zgrab",
    "nuclei",
    "sqlmap",
    "nikto",
    "wpscan",
    "dirbuster",
    "gobuster",
    "ffuf",
    "aws-sdk-\\w+",
    "boto\\d?",
    "botocore",
    "azure",
    "gcloud",
    "terraform",
    "ansible",
    "kube-probe",
    "prometheus",
    "grafana",
    "nagios",
    "zabbix",
    "check_http",
    "elb-healthchecker",
    "cloudflare-\\w+",
    "amazon cloudfront",
    "hwcdn",
    "unirest",
    "feedparser",
    "simplepie",
    "magpierss",
    "rome client",
    "apt-http",
    "debian apt",
    "yum",
    "urlgrabber",
    "pip",
    "npm",
    "yarn",
    "composer",
    "cargo",
    "nuget",
    "maven",
    "gradle",
    "git",
    "svn",
    "mercurial",
    "lavf",
    "ffmpeg",
    // crawler-user-agents' http-library names (MIT) that no people's software starts with (its okhttp, BTWebClient
    // and Download Ninja name apps' stacks and a download manager; newspaper could be an app's name)
    "httpunit",
    "phpcrawl",
    "pcore-http",
    "jetty",
    "http_get",
    "colly",
    "trafilatura",
    "larbin",
  ].join("|") + ")(?:[/ _;(-]|$)",
  "i",
);

/** An app's own name on Apple's or Android's HTTP stack: "Name/3 CFNetwork/893 Darwin/17.3.0", "Name/2 Dalvik/2.1". */
const APP_ON_STACK = /^[\w.-]+\/[\w.]+ (?:CFNetwork\/[\d.]+ Darwin\/\d|Dalvik\/\d)/;

/**
 * Automation frameworks, headless browsers and the page-speed tools built on them; scraping browsers (Camoufox,
 * a Firefox build made to evade bot detection, by its own and uap-core's description); headless renderers of
 * pages to images and PDFs (wkhtmltoimage, wkhtmltopdf: Qt WebKit "run entirely headless", by their makers'
 * description; WebKit's own layout-test runner DumpRenderTree, arp242/isbot's bot tests), Scrapinghub's Splash
 * in its default agent ("… splash Version/10.0 Safari/602.1"), and the platform Qt WebKit reports on a machine with no display ("(Unknown; Linux x86_64)": PhantomJS, Pingdom's
 * renderer; a TV's "(Unknown; Linux armv7l)" is no such machine); site copiers and HTTP client libraries
 * named anywhere in the agent ("HttpClient", "Google-HTTP-Java-Client"), and PowerShell's web cmdlets, which append
 * their name to a browser's prefix ("… WindowsPowerShell/5.1.19041"; opawg/user-agents-v2 lists them as bots), and
 * Node.js's runtime as a product ("Mozilla/5.0 (Linux x64) node.js/16.14.2 v8/9.4"): a script's, no app's.
 */
const HEADLESS =
  /headless|camoufox|phantomjs|wkhtmlto(?:image|pdf)|dumprendertree|\bsplash(?= Version\/)|\(Unknown; Linux (?:x86_64|i[3-6]86)\)|slimerjs|puppeteer|playwright|selenium|webdriver|chrome-lighthouse|lighthouse|pagespeed|gtmetrix|\bPTST\/|prerender|rendertron|splash\/|htmlunit|zombie\.js|jsdom|cypress|httrack|webzip|webcopier|offline explorer|sitesucker|webstripper|(?<!syncml |[a-z])http(?:[ _-][a-z]+)?[ _-]?client\b|http_client|httpurlconnection|\bwinhttp|libwww-perl|\blwp[-:]|python-|(?<![\w-])java\/\d|\b(?:Windows)?PowerShell\/\d|\bnode\.js\/\d/i;

/**
 * Words that only automation puts in its agent (since the tenth round also a name ending in "Monitor" or
 * "Agent)" and a "…Scan" name: "(Dotcom-Monitor)", "Sucuri Integrity Monitor/2.4", "(ThousandEyes Agent)",
 * "(NetShelter ContentScan)"), and a maker's "by …" after the browser's own product ("… Safari/537.36 by
 * Siteimprove"; ROM builders write theirs inside the platform's parentheses). "bot" needs a word edge and not the phone maker Cubot nor
 * German's words for offer and ban ("angebot", as n-tv's app reports its survey keys: {"angebot":"appntv"});
 * "spider", "crawl", "fetch" and "scrap" as parts of names; "inspector" as a word (tag and page inspectors);
 * the subscriber counts and feed ids feed services report ("(12 subscribers; feed-id=…)") and a podcast
 * service's own words for what it does ("Podcast Sync", "podcast downloader", "(Podcast Import)"), which the
 * media rule would otherwise take for a person's player. Since the thirteenth round also a transcoder, which
 * fetches and rewrites the page for a device ("(compatible; MSIE 6.0; Windows NT 5.0; baidu Transcoder;)", as
 * Google's Web Light does), and a resolver, which fetches a link to find what it points at ("Evernote Clip
 * Resolver"): both browscap's robots. Since the seventeenth round not "preview" before a release number: a
 * browser's pre-release names itself so ("Opera/7.60 preview 4 (Mac OS X 10.3)", uap-core's PGTS agents).
 */
const WORDS =
  /(?<![a-z])(?:transcoder|resolver)\b|(?<!cu|ange|\bver|\bge)bot(?:s\b|\b|[-_/;:.)]|$)|\bbot|crawl|spider|scrap(?:er|ing|y)|slurp|fetcher|\bfetch\/|archiver|indexer|harvest|link ?check|checklinks|checker\b|seeker\b|validator|monitoring|uptime|pinger|prober|\bscan(?:ning|ner)?\b|\/scan|\bprobe\b|synthetic|healthcheck|health-check|(?<!developer)preview(?! \d)|screenshot|thumbnail|\binspector\b|favicon|expander|unfurl|analy[sz]er\b|monitor(?:\/\d|\)|$)| agent\)|(?:Safari|Firefox|Chrome|Edg|OPR)\/[\d.]+ by [a-z]|(?<=[a-z])Scan\b|(?:[a-z]|-)agent\b|\b\d+ (?:subscribers?|readers)\b|\bfeed-?id[=:]|\bpodcast (?:sync|import(?:er)?|downloader|transcriber)\b|\(podcast import\)|podcasts?[\w-]{0,20}?(?:download|import|transcri|grabb?er|pipeline|worker|processor|puller)|(?:download|import|transcrib|grabb?|pipeline|worker|process|pull)(?:er|ing)?[-_]?podcast/i;

/**
 * An Android phone or tablet sold under a "bot" name, as the model the platform's parentheses end with
 * ("(Linux; Android 7.0; M bot 60 Build/NRD90M)", "(Linux; Android 6.0; VR BOT 552 PLUS)", "M_bot_tab_71",
 * browscap's test agents of Chrome): a model number follows the word, which no crawler writes there; since the
 * thirteenth round also a model name joining "bot" to a word that ends the platform ("(Linux; Android 8.1.0;
 * XBot_Senior)", "XBot Junior Build/O11019; wv)", "Kidbot_????", browscap's Chrome agents), and since the
 * eighteenth round a maker's word and "BOT" ending the platform before WebKit ("(Linux; Android 6.0; POWER BOT)
 * AppleWebKit/…", agentzero's test agents). The model is blanked before the words are read.
 */
const BOT_PHONE_MODEL =
  /(\(Linux; (?:U; )?Android [\d.]+; )(?:(?:[A-Z]{1,3}[ _])?bot(?:[ _]tab)?[ _]\d+(?=[^;)]*\))|[A-Z][a-z]{0,3}bot(?:[ _][\w?]+)+(?=(?: Build\/[^;)]*)?(?:; wv)?\))|[A-Z]{2,8} bot(?=(?: Build\/[^;)]*)?(?:; wv)?\) AppleWebKit\/))/gi;

/**
 * The Masking Agent add-on's token, which takes the place of a Gecko browser's platform ("Mozilla/5.0
 * (masking-agent; rv:36.0) Gecko/20100101 Firefox/36.0"): a person's browser hiding its system, as browscap's
 * tests (four Firefox agents) and Browser.php's (a Pale Moon agent) both file it; not the word "agent" that
 * automation writes. Twenty-sixth round. Blanked, like a phone's "bot" model, before the words are read.
 */
const MASKING_AGENT = /(^Mozilla\/5\.0 \()masking-agent(?=; rv:[\d.]+\) Gecko\/)/;

/**
 * A domain name inside a browser-shaped agent, subdomains included ("Survey/2.3 (fr.wsdata.com)"): browsers
 * never carry one, tools wearing a browser's do. Not after a slash, a brace or a bracket: a phone's build id
 * ("Build/VEGAVIET.COM"), a proxy's path, a vendor's customisation of Internet Explorer ("{www.Noldus.com}",
 * "eBook Maestro [ebookmaestro.com]"); nor a toolbar named by its domain ("Ant.com Toolbar 1.5 Firefox/3.0.19").
 */
const DOMAIN_IN_BROWSER =
  /^Mozilla\/[\d.]+ ?(?:\([^)]*\))?.*?(?<![\w./{[])(?:[\w-]+\.)+(?:com|net|org|io|ai|co|info|biz|dev|app)(?:\/|\b(?![.-]| Toolbar\b))/i;

/**
 * A browser add-on naming itself by its domain and version inside the parentheses ("…; Windows NT 5.1;
 * StumbleUpon.com 1.760; .NET CLR 1.1.4322)", uap-core's PGTS agents: 52 of them): its own token, not a fetcher's
 * address, when the name is a known add-on's (`knownAddOn`: StumbleUpon, one of Yauaa's browser add-ons; since the
 * eighteenth round no browser's or app's name: "…; Opera.com 2.1)" stays a sign). Seventeenth round; browscap
 * files one such agent under its robots, uap-core and Yauaa as a person's browser.
 */
const ADD_ON_DOMAIN = /(?<![\w./{[])([\w-]+)\.(?:com|net|org) \d+(?:\.\d+)+(?=[;)])/gi;

/**
 * The domain sign, once a known add-on's own domain tokens are set aside, and a known app's embedded browser
 * naming itself like a domain where a browser names itself (`knownProductNamedLikeDomain`, browser_shape.ts).
 */
function domainInBrowser(ua: string): boolean {
  if (!DOMAIN_IN_BROWSER.test(ua)) return false;
  if (!ua.includes(" ")) return true;
  if (knownProductNamedLikeDomain(ua)) return false;
  const rest = ua.replace(
    ADD_ON_DOMAIN,
    (token, name: string) => knownAddOn(name.toLowerCase()) ? "" : token,
  );
  return rest === ua || DOMAIN_IN_BROWSER.test(rest);
}

/**
 * An in-app browser's webview (Android's "; wv)", or an iPhone's, iPad's or iPod's WebKit followed at once by
 * "Mobile/…" with no Safari) whose last product is a "…Browser" with its version and home page in parentheses
 * ("… Mobile/15E148 StudoBrowser/3.16.0-ios-studo (https://studo.co/…)", arp242/isbot's browser tests): a browser
 * naming itself, no fetcher (those write "+http"). It spares the agent the domain and URL signs only.
 */
const BROWSER_HOME_PAGE =
  /^Mozilla\/5\.0 \((?:(?:iPhone|iPad|iPod)[^)]*\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Mobile\/\w+|[^)]*; wv\).*) [A-Z]\w*Browser\/[\w.-]+ \(https?:\/\/[^\s)]+\)$/;

/**
 * Uptime, performance and SEO services that wear a browser's agent with their name added; a name starts a word
 * ("Storytel", the audiobook app, holds "ryte").
 */
const SERVICES =
  /(?<![a-z])(?:pingdom|gomez|statuscake|site24x7|uptimerobot|newrelic|datadog|catchpoint|dynatrace|keynote|alertsite|webpagetest|sitespeed|checkly|freshping|hetrixtools|montastic|monitis|rigor|yottaa|semrush|ahrefs|majestic|screaming ?frog|sitebulb|deepcrawl|oncrawl|botify|seobility|serpstat|sistrix|ryte|contentking|xenu)/i;

/**
 * Attack payloads in the agent: a shell function (Shellshock, also as "('') { :;};"), a JNDI lookup (Log4Shell),
 * SQL (a quote or bracket closing the value, then OR/AND/ORDER BY/WHERE/UNION or a comparison of two numbers;
 * Oracle's "'||" concatenation; file and DNS side channels: load_file, xmltype, DBMS_PIPE, nslookup), markup or
 * script (an ESI include, alert(), a template expression or an unfilled "{}" one in the platform part, OGNL's
 * _memberAccess), path climbing at the start or after the version ("../Mozilla/5.0", "Safari/537.36/../x",
 * "Safari/537.36../."), a double quote closing a value before a semicolon (tenable's '… Safari/537.36
 * ";tenable_wasscan_xss…'). No person's software sends these; scanners probing
 * for injections do (the kinds Yauaa's hacker tests, Apache-2.0, group them by).
 */
const PAYLOAD =
  /\(\)\s*\{|\{\s*:\s*;\s*\}|\$\{jndi:|\$\{[^}]*\}|[(;]\s*\{\}\s*[;)]|<\s*script|<\s*esi:|<\?(?:php|xml)|\bunion\s+(?:all\s+)?select\b|['"`)]\s*(?:or|and)\s+['"\d(]|['"`)]+\s*(?:order\s+by|where|as\s+\w+\s+where)\b|\b(?:or|and)(?:\s+not)?\s+\d+=\d+|'\s*\|\||\|\|\s*'|\b(?:load_file|xmltype|dbms_pipe\.\w+|extractvalue|benchmark|pg_sleep|waitfor\s+delay)\s*\(|\bsleep\(\d|\balert\s*\(|#_memberAccess|\bnslookup\b|--\s*$|(?:^|[\d/])\.{1,3}\/(?:\.{1,3}\/|Mozilla)|\d\.\.\/|"\s*;|\/\.\.(?:\/|$)|\.\.\/\.\.\/|\/etc\/passwd|\bcmd\.exe\b|\/bin\/(?:ba)?sh\b/i;

/** Every payload above has one of these in it; looking for them first keeps the regex off ordinary agents. */
const PAYLOAD_HINT =
  /[{<'"`|]|--|\.\.|\/etc\/|cmd\.exe|\/bin\/|union|sleep|nslookup|alert|load_file|xmltype|dbms_|extractvalue|benchmark|waitfor|_memberaccess|\d=\d/i;

/**
 * A "(compatible; …)" part inside a complete browser agent, after the browser's own product or in the engine's
 * parentheses: the form crawlers use to name themselves inside a browser's agent ("… Safari/537.36
 * (compatible; AdsBot-Google-Mobile; …)", "(KHTML, like Gecko; compatible; BW/1.2; …)"). Browsers that wrote
 * "compatible" (MSIE, Konqueror) put it first, right after "Mozilla/x (". A bare "(compatible)" names nobody:
 * Sailfish's browsers end with it ("… Mobile Safari/538.1 (compatible)", browscap's tests; fifteenth round).
 */
const COMPATIBLE_INSIDE =
  /(?:Safari|Firefox|Chrome|Edg|OPR)\/[\d.]+ *\(compatible\b(?!\))|like Gecko; ?compatible\b/;

/**
 * A name inside WebKit's "(KHTML, like Gecko)": after a semicolon ("(KHTML, like Gecko; Google Page Speed
 * Insights)", "(KHTML, like Gecko; Mediapartners-Google)"), or after a comma when it is no Safari and carries no
 * version ("(KHTML, like Gecko, Foregenix)"). Browsers leave the part as WebKit wrote it; old WebKit builds add
 * ", Safari/419.3" and an app's webview its own versioned SDKs.
 */
const ENGINE_NAMED = /\(KHTML,? like Gecko(?:; ?\w|, ?(?!Safari\b)\w[^/)]*\))/i;

/** A "+http" contact URL: the crawler convention ("+http://example.com/bot.html", "+example.com/bot"). */
const CONTACT = /\+ ?https?:|\+(?:www\.)?[a-z0-9-]+\.(?:com|net|org|io|ai|info|de|fr|jp|ru|cn|co|uk)\b/i;

/** An e-mail address as the whole of a parenthesised part: "(name@example.com)". */
const EMAIL_PART = /\( ?[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,} ?\)/i;

/** A plain URL or e-mail address: common in automation, but some desktop apps carry their home page too. */
const ADDRESS = /https?:\/\/|\bwww\.[\w-]+\.|[\w.-]+@[\w-]+\.[a-z]{2,}|\w+ at \w+ dot \w+/i;

/**
 * A browser agent no browser wrote, whose fixed parts are misspelled or rearranged the way bot-detection evasion
 * and hand-typed scripts get them wrong: the misspellings Yauaa (Apache-2.0) lists as abnormal product names
 * ("Mozlila", "Bulid", "Moblie") and its forged engine name "App3leWebKit", a colon after Macintosh or its
 * semicolon missing ("(Macintosh: Intel Mac OS X", "(Macintosh Intel Mac OS X": Safari has written
 * "(Macintosh; Intel Mac OS X" since 2006), an architecture no machine has, counted up by a scanner
 * ("Linux x187_64", Yauaa's hacker tests; "x86_64" and the typo "x64_64" are people's), and a library's own product joined to a browser agent by a comma
 * ("hackney/1.6.6, Mozilla/5.0 (…)": a proxy or client that prepends itself; apps that name themselves first
 * use a space).
 */
const FORGED =
  /\b(?:Mozlila|Bulid|Moblie|App3leWebKit)\b|\(Macintosh(?::| Intel Mac)|^[\w.-]+\/[\w.-]+, ?Mozilla\/\d|\bLinux x(?!86_|64_)\d{2,3}_64\b/;

/**
 * A browser agent whose parts cannot all be true at once (the sender's pre-filter rules, made precise: real
 * in-app agents put a hardware model beside the device word, and iOS 3 and 4 shipped Safari 4 and 5).
 */
const PLAIN_SAFARI_END = /\bVersion\/[\d.]+ (?:Mobile\/\w+ )?Safari\/[\d.]+$/;

export function selfContradicting(ua: string): boolean {
  // Legacy EdgeHTML's "Edge/" token never sat beside Chrome 79 or later (Chromium Edge says "Edg/"), but on the
  // Xbox and Windows Mobile, where EdgeHTML stayed, Microsoft moved its Chrome token on ("… Xbox One) … Chrome/
  // 100.0.4896.127 Safari/537.36 Edge/44.18363.8131", donatj/PhpUserAgent's tests)
  if (/\bEdge\/\d/.test(ua) && !/\bXbox\b|\bWindows (?:Mobile|Phone)\b/.test(ua)) {
    const chrome = /\bChrome\/(\d+)/.exec(ua);
    if (chrome && Number(chrome[1]) >= 79) return true;
  }
  // A hardware model ("iPhone10,3") in place of the device word, right before Safari's "CPU … OS", with an iOS
  // older than any that model ran: a model numbered N first shipped with iOS N+1 or later (iPhone10 with 11,
  // iPhone17 with 18; iPads and iPods later still). Apps' own webviews write their model there with the iOS it
  // runs ("(iPhone17,1; CPU iPhone OS 18_2_1 …) … Mobile/15E148 Mohegan Sun/4.7.4", Shopify/browser_sniffer's
  // tests), so the model alone says nothing (fifteenth round). An OS token of 18 says "18 or later": from iOS 26
  // WebKit freezes it at 18_x, so an iPhone 17's webview ("iPhone18,1; CPU iPhone OS 18_7") is no contradiction.
  const ios = /\bCPU (?:iPhone )?OS (\d+)_/.exec(ua);
  const model = /^Mozilla\/5\.0 \((?:iPhone|iPad|iPod)(\d+),\d+; CPU /.exec(ua);
  if (model && ios && Number(ios[1]) !== 18 && Number(ios[1]) < Number(model[1]) + 1) return true;
  // Plain Safari whose Version/ is newer than its iOS (5 to 18: Safari 26+ freezes the OS token at 18_x). Plain:
  // nothing but Mobile/ between Version/ and Safari/; other browsers on iOS write a Version/ of their own there
  // ("Version/6.0 MQQBrowser/4.0.2 Mobile/9B206 Safari/…", "Version/13.1 (Ecosia ios@4.1.10.875) Safari/604.1";
  // browscap's and Yauaa's tests; fifteenth round).
  const version = /\bVersion\/(\d+)/.exec(ua);
  if (ios && version && PLAIN_SAFARI_END.test(ua)) {
    const v = Number(version[1]);
    if (Number(ios[1]) >= 5 && v <= 18 && v > Number(ios[1])) return true;
  }
  return false;
}

/** Why an agent is automated by its own words, or null when nothing in it says so (strong signs only). */
export function automationSign(ua: string): string | null {
  const payload = PAYLOAD_HINT.test(ua) ? PAYLOAD.exec(ua) : null;
  if (payload) return `attack payload in the agent: ${payload[0]}`;
  const tool = TOOL_PRODUCT.exec(ua);
  // an iOS or Android app named like a library ("Hyper/3 CFNetwork/893.14.2 Darwin/17.3.0"): its platform's stack
  if (tool && !APP_ON_STACK.test(ua)) return `HTTP library or tool: ${tool[0].replace(/[/ _;(-]$/, "")}`;
  const headless = HEADLESS.exec(ua);
  if (headless) return `headless or scripted browser: ${headless[0]}`;
  const onStack = APP_ON_STACK.test(ua);
  const service = SERVICES.exec(ua);
  if (service && !onStack) return `monitoring or SEO service: ${service[0]}`;
  const word = WORDS.exec(
    ua.replace(/user-?agent/gi, "").replace(BOT_PHONE_MODEL, "$1").replace(MASKING_AGENT, "$1"),
  );
  if (word) return `automation word: ${word[0]}`;
  if (CONTACT.test(ua)) return "contact URL";
  if (ua.includes("compatible") && COMPATIBLE_INSIDE.test(ua)) {
    return "crawler's compatible part inside a browser agent";
  }
  if (ua.includes("ike Gecko") && ENGINE_NAMED.test(ua)) return "a name inside the engine's parentheses";
  // an in-app browser's own "…Browser/version" product may end the agent with its home page (StudoBrowser)
  const homePage = BROWSER_HOME_PAGE.test(ua);
  if (!homePage && domainInBrowser(ua)) return "domain name in a browser-shaped agent";
  // browsers carry no address at all; tools that wear a browser's agent give their page ("… https://top.mail.ru/…")
  // (feature phones' WAP stacks may name their carrier's gateway)
  if (!homePage && ua.startsWith("Mozilla/") && /https?:\/\//i.test(ua) && !FEATURE_PHONE.test(ua)) {
    return "URL in a browser-shaped agent";
  }
  // a contact e-mail address as a part of its own, the other way crawlers say whom to write to
  // ("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1) (name@example.com)"); a browser writes none there
  if (ua.includes("@") && ua.startsWith("Mozilla/") && EMAIL_PART.test(ua)) {
    return "e-mail address in a browser-shaped agent";
  }
  if (selfContradicting(ua)) return "self-contradicting browser agent";
  const forged = FORGED.exec(ua);
  if (forged) return `forged browser agent: ${forged[0]}`;
  return null;
}

/** Whether the agent carries a URL or an e-mail address. */
export function carriesAddress(ua: string): boolean {
  return ADDRESS.test(ua);
}

/** Weaker signs, asked only of agents no human-client rule recognised. */
export function weakAutomationSign(ua: string): string | null {
  if (ADDRESS.test(ua)) return "URL or address in the agent";
  return null;
}
