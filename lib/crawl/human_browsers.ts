/**
 * Browsers in an agent: Mozilla- or Opera-shaped agents with a platform, and the text, legacy and niche
 * browsers that do not start with Mozilla/. Used by human_clients.ts.
 */

/** Text, legacy and niche browsers that do not start with Mozilla/. */
export const OTHER_BROWSER = new RegExp(
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

/**
 * A browser's own agent: Mozilla/ or Opera/ with a platform in parentheses. The platform starts a word, so a
 * tool's name in the same place ("(compatible; Microsoft-WebDAV/1.0)", "(compatible; webscout/1.0)") is none.
 * The Masking Agent add-on's token stands where a Firefox's platform was ("(masking-agent; rv:36.0)";
 * automation_signs.ts `MASKING_AGENT`).
 */
export const BROWSER =
  /^(?:Mozilla|Opera)\/\d(?:\.\d+)* ?\([^)]*\b(?:Windows|Macintosh|X11|Linux|Android|iPhone|iPad|iPod|CrOS\b|BlackBerry|BB10|Symbian|Series|MeeGo|Maemo|Mobile|Tablet|PlayStation|Nintendo|Xbox|SMART-TV|SmartTV|Tizen|Web0?S\b|KAIOS|MSIE|Konqueror|Amiga|MorphOS|AROS|BeOS|Haiku|OS\/2|SunOS|FreeBSD|OpenBSD|NetBSD|Fuchsia|Windows Phone|Palm|J2ME|Kindle|Nokia|U;|masking-agent; rv:)/i;

/** A browser that names itself so ("WWW Browser/1.0", "Browser/Teleca"). */
export const BROWSER_WORD = /\bBrowser\/|\bMSIE \d|IEMobile/i;

/**
 * A product named "…Browser" with its version, glued or not ("NokiaBrowser/7.3", "Web Browser 2.1"): a browser's
 * own name, when the agent carries no address (a storage client calling itself "S3 Browser 8.6.7" gives its URL).
 */
export const NAMED_BROWSER = /browser[ /]v?\d/i;
