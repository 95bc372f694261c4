/**
 * Agents of software people use: browsers, in-app browsers, native apps, media players and TVs, feature phones,
 * text and legacy browsers, mail and office clients. Each rule returns the reason it fired, or null.
 * These run after the strong automation signs (automation_signs.ts), so a rule here may be generous: an agent
 * that also says "bot", names an HTTP tool as its product or carries a "+http" contact URL never gets here.
 */

/** Feature phones and WAP browsers: Java ME profiles, WAP stacks, phone browsers and handset makers' agents. */
const FEATURE_PHONE = new RegExp(
  [
    "Profile/ ?MIDP",
    "\\bMIDP-?\\d",
    "Configuration/ ?CLDC",
    "\\bCLDC-?\\d",
    "\\bJ2ME\\b",
    "\\bBREW\\b",
    "UP\\.Browser",
    "UP\\.Link",
    "Obigo",
    "NetFront",
    "Teleca",
    "Openwave",
    "Opera Mini",
    "Opera Mobi",
    "\\bUCWEB",
    "UC ?Browser",
    "\\bJUC\\b",
    "Series ?[46]0",
    "SymbianOS",
    "Symbian/",
    "\\bS60\\b",
    "Polaris",
    "Jasmine/",
    "Dolfin/",
    "\\bMAUI\\b",
    "\\bMMP/",
    "\\bWAP ?\\d",
    "/WAP",
    "\\bDoCoMo/",
    "\\bKDDI-",
    "\\bSoftBank/",
    "\\bVodafone/",
    "portalmmm",
    "\\bNucleus RTOS",
    "\\bMTK\\d",
    "\\bUNTRUSTED/",
  ].join("|"),
  "i",
);

/** Agents that begin with a handset maker and model ("NOKIA-6020", "SAMSUNG-SGH-T419", "LGU400", "MOT-V226"). */
const HANDSET = new RegExp(
  "^(?:[\\w.]+ )?(?:" + [
    "Nokia",
    "SAMSUNG",
    "SEC-",
    "SGH",
    "SCH",
    "SPH",
    "SonyEricsson",
    "Sony",
    "Ericsson",
    "MOT",
    "Motorola",
    "LGE?",
    "LGU",
    "HTC",
    "Alcatel",
    "Huawei",
    "ZTE",
    "Pantech",
    "Sagem",
    "SIE-",
    "Siemens",
    "Sharp",
    "Kyocera",
    "Philips",
    "Lenovo",
    "Micromax",
    "Karbonn",
    "Amoi",
    "Haier",
    "Hisense",
    "Coolpad",
    "K-Touch",
    "Gionee",
    "Tecno",
    "Infinix",
    "BlackBerry",
    "Audiovox",
    "Sanyo",
    "Panasonic",
    "Casio",
    "Hitachi",
    "Toshiba",
    "BenQ",
    "Asus",
    "Acer",
    "Archos",
    "Dell",
    "Qtek",
    "KWC",
    "i-mobile",
    "Vertu",
    "Sendo",
    "Telit",
    "Vodafone",
    "T-Mobile",
  ].join("|") + ")(?:[-_ /.]?[A-Z0-9]|$)|" +
    // short or common words, only with a model number right after
    "^(?:TCL|Spice|Lava|Bird|Fly|itel|Palm|NEC|Orange|Sprint|Verizon|Cricket|Zonda)[-_ /.]?[A-Z]{0,3}\\d",
  "i",
);

/** Text, legacy and niche browsers that do not start with Mozilla/. */
const OTHER_BROWSER = new RegExp(
  "^(?:" + [
    "Lynx",
    "Links",
    "ELinks",
    "w3m",
    "Dillo",
    "NetSurf",
    "Browsh",
    "retawq",
    "edbrowse",
    "Emacs-W3",
    "Amaya",
    "Arachne",
    "OffByOne",
    "NCSA[_ ]Mosaic",
    "Mosaic",
    "AmigaVoyager",
    "Voyager",
    "IBrowse",
    "AWeb",
    "iCab",
    "OmniWeb",
    "Cyberdog",
    "HotJava",
    "Lobo",
    "Oregano",
    "Konqueror",
    "Galeon",
    "Epiphany",
    "Midori",
    "Surf",
    "Xombrero",
    "uzbl",
    "luakit",
    "qutebrowser",
    "Otter",
    "Falkon",
    "QupZilla",
    "Arora",
    "Kazehakase",
    "Netscape",
    "Navigator",
    "Opera",
    "Doris",
    "Bunjalloo",
    "ICE ?Browser",
    "Cello",
    "MacWeb",
    "WinWeb",
    "Camino",
    "Chimera",
    "Minimo",
    "Fennec",
    "Skyfire",
    "Bolt",
    "OviBrowser",
    "OneBrowser",
    "iBrowser",
    "GoBrowser",
    "Teashark",
    "SeaMonkey",
    "Sleipnir",
    "Flock",
    "Lunascape",
    "K-Meleon",
    "Iceweasel",
    "IceCat",
    "MQQBrowser",
    "QQBrowser",
    "UCBrowser",
    "Dorothy",
    "Maxthon",
    "Puffin",
    "Silk",
    "Kindle",
    "Brave",
  ].join("|") + ")\\b",
  "i",
);

/** Media players, TVs, consoles and streaming boxes: their own agents, their HTTP stacks, their platforms. */
const MEDIA_AND_TV = new RegExp(
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
  ].join("|"),
  "i",
);

/** Mail, office, messaging and in-app browsers: clients whose user is a person. */
const PERSONAL_APP = new RegExp(
  [
    "Microsoft Office",
    "MSOffice",
    "\\bms-office",
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
 * and Darwin, an app's okhttp or Alamofire behind its own name, or "iOS 17.1", "Android/13" in the agent.
 */
const APP_STACK =
  /\bDalvik\/\d|\bCFNetwork\b|\bDarwin\/\d|\bAlamofire\/|.+\bokhttp\/?\d?|\bCronet|\bAFNetworking|\bNSURLSession|\b(?:iOS|iPadOS|iPhone ?OS|Android(?: OS)?|watchOS|tvOS|visionOS|Windows Phone(?: OS)?|HarmonyOS|KaiOS)[/ :]?\d|\( ?(?:[^)]*[;, ] ?)?(?:iPhone|iPad|iPod|iOS|Android|Macintosh|Windows NT|Windows|Win32|Win64|Mac OS X|Linux; U; Android|Commodore \d+)\b/i;

/**
 * A phone or tablet model anywhere in the agent ("GT-I9505", "SM-N9005", "LG-P700", "iPhone12,1", "Nexus 7"),
 * or a mobile OS named as such: only software on a person's device reports them outside a browser agent.
 */
const DEVICE_MODEL =
  /\b(?:GT-[A-Z]?\d{3,5}|SM-[A-Z]\d{3,4}|SGH-|SCH-|SHV-|SHW-|SPH-|LG-[A-Z]{1,2}\d{2,4}|Nexus \d|Pixel \d|Xperia|ONEPLUS|Redmi|Lumia|iPhone\d+,\d|iPad\d+,\d|iPod\d+,\d|Watch\d+,\d|AppleTV\d+,\d|XT\d{3,4}\b|RM-\d{3,4}|(?:HTC|Samsung|Sony|LGE|Motorola|Huawei|Xiaomi|OnePlus|Nokia|Lenovo|Asus|ZTE|Oppo|Vivo)[ _/-][A-Z]|Windows NT \d|Mac OS X\b|macOS\b)|\b(?:android|androidOS|iOS|iPadOS|iPhone|iPad|Windows ?Phone|WindowsPhone|Windows Mobile|Windows CE|WinCE|WP7|WP8|Symbian|BlackBerry|KaiOS|HarmonyOS|Tizen)\b/i;

/** "ESPN Radio 4.7.4 rv:1032 (iPhone; …)": an iOS app's name, version and build. */
const APP_BUILD = /^[\p{L}\d .'&!+-]+ \d+(?:\.\d+)* rv:\d+/u;

/** A browser's own agent: Mozilla/ or Opera/ with a platform in parentheses. */
const BROWSER =
  /^(?:Mozilla|Opera)\/\d(?:\.\d+)* ?\([^)]*(?:Windows|Macintosh|X11|Linux|Android|iPhone|iPad|iPod|CrOS|BlackBerry|BB10|Symbian|Series|MeeGo|Maemo|Mobile|Tablet|PlayStation|Nintendo|Xbox|SMART-TV|SmartTV|Tizen|Web0?S|KAIOS|MSIE|Konqueror|Amiga|MorphOS|AROS|BeOS|Haiku|OS\/2|SunOS|FreeBSD|OpenBSD|NetBSD|Fuchsia|Windows Phone|Palm|J2ME|Kindle|Nokia|U;)/i;

/** A browser that names itself so ("WWW Browser/1.0", "Browser/Teleca"). */
const BROWSER_WORD = /\bBrowser\/|\bMSIE \d|IEMobile/i;

/**
 * An app's own agent with its device details ("WhatsApp/2.11 Android/4.3 Device/asus-Nexus_7"), as opposed to
 * a crawler's fetcher form of the same name ("WhatsApp/2.23.20.0 A").
 */
export function appWithDeviceDetails(ua: string): boolean {
  if (/^Mozilla\//i.test(ua)) return false;
  return /\bDevice\/|\b(?:Android|iOS|iPhone ?OS|WP7|WP8|Windows Phone|S60Version)[/ ]?\d|\bDalvik\/|\bCFNetwork\//i
    .test(ua);
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
const FEED_READER = /(?:rss|feed|headline|news)[- ]?(?:reader|bar)|syndication\//i;

/** Why an agent is a person's client, or null when no rule recognises it. */
export function humanClient(ua: string): string | null {
  if (BROWSER.test(ua)) return "browser";
  if (FEATURE_PHONE.test(ua) || HANDSET.test(ua)) return "feature phone or WAP browser";
  if (OTHER_BROWSER.test(ua) || BROWSER_WORD.test(ua)) return "text, legacy or niche browser";
  if (MEDIA_AND_TV.test(ua)) return "media player or TV";
  // a bare messaging name ("Viber") is how some link-preview fetchers announce themselves: the app says more
  if (PERSONAL_APP.test(ua) && /\d/.test(ua)) return "mail, office, messaging app or in-app browser";
  if (APP_STACK.test(ua) || APP_BUILD.test(ua)) return "native app";
  if (DEVICE_MODEL.test(ua)) return "app on a phone or tablet";
  if (FEED_READER.test(ua)) return "feed reader";
  return null;
}
