/**
 * Apps people use, in an agent: media players, TVs and consoles, mail, office and messaging apps, in-app
 * browsers, native app HTTP stacks, app builds and feed readers. Used by human_clients.ts and classify.ts.
 */

/** Media players, TVs, consoles and streaming boxes: their own agents, their HTTP stacks, their platforms. */
export const MEDIA_AND_TV = new RegExp(
  [
    "stagefright",
    "ExoPlayer",
    "AppleCoreMedia",
    "CoreMedia",
    "AVPlayer",
    "MediaPlayer",
    "NexPlayer",
    "GStreamer",
    "\\bVLC\\b",
    "LibVLC",
    "MPlayer",
    "\\bmpv\\b",
    "Kodi/",
    "XBMC/",
    "\\bPlex",
    "Winamp",
    "foobar2000",
    "Windows-Media-Player",
    "NSPlayer",
    "WMFSDK",
    "QuickTime",
    "iTunes",
    "AppleTV",
    "Apple TV",
    "\\bRoku",
    "Sonos",
    "PS[345]Application",
    "PlayStation",
    "\\bXbox",
    "Nintendo",
    "HbbTV",
    "SmartTV",
    "SMART-TV",
    "\\bTizen",
    "\\bWeb0?S\\b",
    "NetCast",
    "BRAVIA",
    "\\bCrKey",
    "Chromecast",
    "\\bAFT[A-Z]",
    "Android ?TV",
    "GoogleTV",
    "\\btvOS",
    "watchOS",
    "HomePod",
    "AirPlay",
    "RealMedia",
    "\\bRMA/",
    "Streamium",
    "BrightSign",
    "Totem/",
    "Rhythmbox",
    "Audacious",
    "Clementine",
    "Amarok",
    "Songbird",
    "Banshee",
    "Aqualung",
    "Zune",
    "MediaMonkey",
    "Miro/",
    "Tunes/",
    "\\bBASS/",
    "BSPlayer",
    "Spotify",
    "Pandora",
    "Deezer",
    "TuneIn",
    "SoundCloud",
    "Shazam",
    "Podcast",
    "Overcast",
    "\\bCastro",
    "Downcast",
    "Stitcher",
    "Pocket ?Casts",
    "BeyondPod",
    "DoggCatcher",
    "Podkicker",
    "AntennaPod",
    "Player ?FM",
    "\\bRadio",
    "\\bMusic",
    "Player\\b",
    // a product named for what it plays ("FStream", "AudiMusicStream/3020", GNOME's "Videos/3.8.2"); "Videos/"
    // only as a product of its own, not a crawler's "-Video" suffix ("GoogleOther-Video/1.0", opawg's bots)
    "Stream(?:ing)?\\b",
    "(?:^|[\\s;(])Videos?/\\d",
    "(?:^|[\\s;(])Movies?/\\d",
    "\\bNero\\b",
    // TV platforms and middleware named after a browser agent (Yauaa's and uap-core's TV tests): CEA-2014's
    // CE-HTML, Philips' NetTV, NetRange's portal, Vestel's VSTVB, Vizio's SmartCast, WebKit for embedded devices
    // (WPE), Espial and ANT Galio TV browsers, Vewd (Opera TV), YouTube's Cobalt, Freebox, Samsung's Maple
    "CE-HTML",
    "NETTV",
    "NetRange",
    "VSTVB",
    "SmartCast",
    "\\bWPE\\b",
    "Espial",
    "ANT ?Galio",
    "Vewd",
    "\\bCobalt/",
    "Freebox",
    "\\bMaple\\b",
    // set-top boxes naming themselves (avct/uasurfer's TV tests): an operator's "…STB" or "…_STB_…" product
    // ("VODAFONE_STB/7.2", "VirginMediaSTB/VIP5002W", "ARRIS_Foxtel_STB_DGX7000NF") and the UK's YouView platform
    "(?:_|Media)STB(?:[/_]|\\b)",
    "\\bYouView",
    // a TV's or set-top box's own brand, model and connection after its firmware, the device part YouTube's TV
    // apps and Cobalt write ("PHILIPS-AVM-2013/1.35 (Philips, BDP5700, wireless)", "KreaTV/15.16.08.09 (Verizon,
    // VMS1100, wired)", "(FORMULER, Formuler Z8 Pro, Wired)": Yauaa's TV test agents); twenty-seventh round
    "\\([^(),]+, ?[^(),]+, ?(?:wired|wireless)\\)",
    // voice assistants' and cars' media engines (opawg/user-agents-v2's apps): Amazon's Echo devices and the Alexa
    // Voice Service SDK, Cinemo's in-car media engine, mpv's library
    "^Amazon;Echo",
    "\\bAvsDeviceSdk/",
    "\\bCinemo/",
    "\\blibmpv\\b",
  ].join("|"),
  "i",
);

/**
 * Mail, office, messaging and in-app browsers: clients whose user is a person. Not Office's and Outlook's own
 * requests (`Microsoft Office/16.0 (…)`, `ms-office; MSOffice 16`, `Outlook-iOS/…`): they check a link before the
 * browser opens it or load a mail's images, and the catalog's "Microsoft Office" entry names them first
 * (docs/crawlers.md). "Outlook" stays for its webviews and in-app browser, which render the page for the person.
 */
export const PERSONAL_APP = new RegExp(
  [
    "Outlook",
    "Thunderbird",
    "Postbox",
    "The Bat!",
    "Airmail",
    "\\bSpark/",
    "Evolution/",
    "KMail",
    "Mailbird",
    "Foxmail",
    "Lotus-Notes",
    "Claws Mail",
    "Sylpheed",
    "Mutt/",
    "Alpine/",
    "Eudora",
    "Geary",
    "Mailspring",
    "BlueMail",
    "eM ?Client",
    "Superhuman",
    "\\w*Mail/\\d",
    "\\bMail \\d",
    "Microsoft (?:Word|Excel|PowerPoint|OneNote|Teams|Visio|Access)",
    "\\bTeams/",
    "Skype",
    "\\bLync",
    "Evernote",
    "Dropbox",
    "OneDrive",
    "\\bBox(?: Sync)?/",
    "\\bFBAN/",
    "\\bFBAV/",
    "\\bFB_IAB",
    "\\[FB",
    "Instagram",
    "Pinterest",
    "Twitter",
    "LinkedInApp",
    "Snapchat",
    "Viber",
    "Telegram",
    "MicroMessenger",
    "WeChat",
    "\\bLine/",
    "KAKAO",
    "NAVER",
    "DaumApps",
    "Orca-Android",
    "Messenger",
    "Zalo",
    "Weibo",
    "baiduboxapp",
    "\\bGSA/",
    "Klarna",
    "musical_ly",
    "TikTok",
    "Bytedance",
    "Electron/",
  ].join("|"),
  "i",
);

/**
 * Native app HTTP stacks and platform tokens only people's devices send: Android's Dalvik, Apple's CFNetwork
 * and Darwin, an app's okhttp or Alamofire behind its own name, or "iOS 17.1", "Android/13" in the agent; iOS's
 * own components name the device model and build ("Apple-iPhone3C1/1104.257", as Yauaa's tests print them).
 * Since the twenty-sixth round the parentheses may also name a personal computer's or handheld's system no
 * server runs (AmigaOS, MorphOS, AROS, RISC OS, BeOS, Haiku, OS/2, DOS, Palm OS, webOS, Syllable, SkyOS, Atari):
 * the browser rule already takes a Mozilla/ agent on them for a person's, and an app naming one is as much a
 * person's as one naming Windows. Not the server Unixes the browser rule also lists (SunOS, the BSDs), where
 * crawlers run, nor Windows' abbreviations ("WinNT", "Win98"): tried, they took four held-out crawlers.
 */
export const APP_STACK =
  /^[A-Za-z]+(?:Android|iOS|iPhone|iPad)(?:App)?\/\d|^Apple-(?:iPhone|iPad|iPod)\d+C\d+\/\d|\bDalvik\/\d|\bCFNetwork\b|\bDarwin\/\d|\bAlamofire\/|.+\bokhttp\/?\d?|\bCronet|\bAFNetworking|\bNSURLSession|\b(?:iOS|iPadOS|iPhone ?OS|Android(?: OS)?|watchOS|tvOS|visionOS|Windows Phone(?: OS)?|HarmonyOS|KaiOS)[/ :]?\d|\( ?(?:[^)]*[;, ] ?)?(?:iPhone|iPad|iPod|iOS|Android|Macintosh|Windows NT|Windows|Win32|Win64|Mac OS X|Linux; U; Android|Commodore \d+|AmigaOS|MorphOS|AROS|RISC ?OS|BeOS|Haiku|OS\/2|(?:MS-|Free|PC-)?DOS|Palm ?OS|webOS|Syllable|SkyOS|Atari)\b/i;

/** "ESPN Radio 4.7.4 rv:1032 (iPhone; …)": an iOS app's name, version and build. */
export const APP_BUILD = /^[\p{L}\d .'&!+-]+ \d+(?:\.\d+)* rv:\d+/u;

/**
 * An app's own agent with its device details ("WhatsApp/2.11 Android/4.3 Device/asus-Nexus_7"), or naming the
 * phone it is built for ("NewsBlur iPhone App v3.6", browscap's test agent), as opposed to a crawler's fetcher
 * form of the same name ("WhatsApp/2.23.20.0 A").
 */
export function appWithDeviceDetails(ua: string): boolean {
  if (/^Mozilla\//i.test(ua)) return false;
  return /\bDevice\/|\b(?:Android|iOS|iPhone ?OS|WP7|WP8|Windows Phone|S60Version)[/ ]?\d|\bDalvik\/|\bCFNetwork\/|\b(?:iPhone|iPad|iOS|Android) App\b/i
    .test(ua);
}

/**
 * A messaging or social app's in-app browser: a whole phone browser agent with the app's name after the engine
 * ("… Mobile Safari/537.36 Viber/21.5"), where its link-preview fetcher sends the name alone ("Viber",
 * "WhatsApp/2.19.330 A"). `name` is the app's name in lower case.
 */
export function inAppBrowserOf(ua: string, name: string): boolean {
  if (!/^Mozilla\/5\.0 \((?:Linux; (?:U; )?Android|iPhone|iPad)/.test(ua)) return false;
  const lower = ua.toLowerCase();
  const engine = lower.indexOf("applewebkit/");
  return engine > 0 && lower.indexOf(name, engine) > engine;
}

/**
 * A media, podcast or messaging app that names the personal device it runs on, whatever contact URL it also
 * carries ("PodcastAddict/v5 (+https://podcastaddict.com/; Android podcast app)"); a feed service of the same
 * vendor names no device ("PocketCasts/1.0 (Pocket Casts Feed Parser; +http://pocketcasts.com/)").
 */
export function appOnPersonalDevice(ua: string): boolean {
  if (/^Mozilla\//i.test(ua)) return false;
  return /\b(?:iOS|iPadOS|Android|iPhone|iPad|watchOS|tvOS)\b/i.test(ua) &&
    (MEDIA_AND_TV.test(ua) || PERSONAL_APP.test(ua) || /\bapp\b/i.test(ua));
}

// A feed reader a person runs (NetNewsWire, RssBar, a "Headline-Reader" plugin, Safari's AppleSyndication);
// server-side feed fetchers say "fetcher", "bot" or give a contact URL, which the strong signs catch first.
export const FEED_READER = /(?:rss|feed|headline|news)[- ]?(?:reader|bar)|syndication\//i;

/**
 * An app's own bundle id as its whole agent, a reverse domain of three labels or more with at most a version
 * ("com.IDEngineering.bbc.english.learning", opawg/user-agents-v2's apps): the identifier iOS and Android give an
 * installed app, which its media and HTTP stacks send when the app sets nothing else. A tool that calls itself
 * a crawler or checker under such an id is caught by the automation signs first.
 */
export const APP_BUNDLE_ID =
  /^(?:com|org|net|io|app|tv|fm|de|fr|nl|uk|it|es|ru|jp|br|au|ca|se|ch|be)\.[a-z][\w-]*(?:\.[a-z][\w-]*)+(?:\/[\w.-]+)?$/i;

/**
 * Reverse-domain ids that are no installed app's (eighteenth round, after a review): Apple's own system daemons
 * and processes ("com.apple.trustd/2.1", the certificate checks of Apple's Security sources, an OS component like
 * Microsoft-CryptoAPI) and an HTTP library's package ("io.ktor.client/2.3.0", "org.jsoup.connect/1.15"): a label
 * that names a client, a connection, a network stack, an SDK, a library, an API or a request.
 */
const NO_APP_ID =
  /^com\.apple\.|\.(?:client|https?|https?-?client|connect(?:ion|or)?|network(?:ing)?|sdk|lib|library|api|okhttp\d?|fetch(?:er)?|requests?|rest)(?=[./]|$)/i;

/** An app's bundle id as its whole agent (`APP_BUNDLE_ID`), not a system component's or a library's. */
export function appBundleId(ua: string): boolean {
  return APP_BUNDLE_ID.test(ua) && !NO_APP_ID.test(ua);
}
