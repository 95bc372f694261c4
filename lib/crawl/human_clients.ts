/**
 * Agents of software people use: browsers, in-app browsers, native apps, media players and TVs, feature phones,
 * text and legacy browsers, mail and office clients. Each rule returns the reason it fired, or null.
 * These run after the strong automation signs (automation_signs.ts), so a rule here may be generous: an agent
 * that also says "bot", names an HTTP tool as its product or carries a "+http" contact URL never gets here.
 */

import { BROWSER, BROWSER_WORD, NAMED_BROWSER, OTHER_BROWSER } from "./human_browsers.ts";
import { carriesAddress } from "./automation_signs.ts";
import { DEVICE_MODEL, FEATURE_PHONE, HANDSET } from "./human_devices.ts";
import { APP_BUILD, APP_STACK, FEED_READER, MEDIA_AND_TV, PERSONAL_APP } from "./human_apps.ts";

export { appOnPersonalDevice, appWithDeviceDetails, inAppBrowserOf } from "./human_apps.ts";

/**
 * Apps whose vendors also run servers that fetch links, feeds or images under the app's name (social networks,
 * messengers, cloud storage, web mail): outside a browser agent the app is told from the fetcher by the platform
 * it names. Desktop mail and office clients ("The Bat! 4.0", "Microsoft Office/16.0 (Microsoft Outlook …)") have
 * no fetcher of their name.
 */
const SERVICE_NAMED_APP =
  /Instagram|Pinterest|Twitter|LinkedIn|Snapchat|Viber|Telegram|MicroMessenger|WeChat|\bLine\/|KAKAO|NAVER|Daum|Messenger|Zalo|Weibo|baidu|\bGSA\/|Klarna|musical_ly|TikTok|Bytedance|Electron\/|Dropbox|OneDrive|Evernote|\bBox(?: Sync)?\/|\w*Mail\/\d/i;

/**
 * The platform a mail, office or messaging app names outside a browser agent ("Outlook-iOS/709.2226530.prod.iphone",
 * "Thunderbird/115 (Windows)"), or the settings WeChat's clients report beside it ("Language/zh ColorScheme/Light
 * DistType/publish wxwork/4.1.3 (MicroMessenger/6.2) WeChat/2.0.4"); a fetcher under such a name
 * ("Pinterest/0.2", "Viber/1.0") names none.
 */
const APP_PLATFORM =
  /\b(?:Windows|Win(?:32|64|NT)|Linux|X11|Macintosh|Mac ?OS|macOS|Darwin|Android|iOS|iPhone|iPad|FreeBSD|OpenBSD|CrOS|Ubuntu|Debian|Fedora)|iphone|ipad|android|\bDevice\/|\bCFNetwork|\b(?:NetType|ColorScheme|DistType)\//i;

/**
 * What a service does with a podcast, a stream or a feed, in an agent the media or feed reader rule took by its
 * words ("Podcast", "Radio", "FeedReader"): processes, imports, classifies, indexes, transcribes, translates,
 * renames or catalogues it, an API, a pipeline, a parser, a search engine ("Audiomack Podcast Processor/1.0",
 * "PodcastIndex Classifier/1.0", "Mozilla/5.0 (compatible; PodcastTranslator/1.0)", "PodbeanFeedReader/6.0 (Feed
 * Parser; …)", opawg/user-agents-v2's podcast bots). People's players and readers name what they are, not what
 * they do to the file; one that names its platform or device is left to the app rules (`APP_PLATFORM`). Since
 * the eighteenth round (after a review) a word the product's own name then calls a player or reader ("Music
 * Catalog Player/1.0") is no service's, "research" must start a word (the Presearch browser), and "aggregator",
 * which people's feed readers call themselves and no own-part service wrote, is no such word.
 */
const MEDIA_SERVICE_WORD =
  /(?:processor|importer|classif|index|\bapi\b(?!\/)|pipeline|catalog|consumer|\bresearch|renam|translat|preflight|\bstt\b|transcri|search engine|parser|validat|analy[sz]|monitor|ingest|harvest|scrap|backfill|\bworker\b|\bbatch\b)(?![^/;()]*(?:player|reader))/i;

/**
 * The word that makes an agent the media or feed reader rule took a service's own request, or null: the agent
 * names no platform or device and says what it does (`MEDIA_SERVICE_WORD`).
 */
export function mediaServiceWord(ua: string): string | null {
  const m = MEDIA_SERVICE_WORD.exec(ua);
  return m && !APP_PLATFORM.test(ua) && !/\b(?:watchOS|tvOS)\b/i.test(ua) ? m[0].toLowerCase() : null;
}

/** Why an agent is a person's client, or null when no rule recognises it. */
export function humanClient(ua: string): string | null {
  if (BROWSER.test(ua)) return "browser";
  if (FEATURE_PHONE.test(ua) || HANDSET.test(ua)) return "feature phone or WAP browser";
  if (OTHER_BROWSER.test(ua) || BROWSER_WORD.test(ua)) return "text, legacy or niche browser";
  if (NAMED_BROWSER.test(ua) && !carriesAddress(ua)) return "a browser by its name";
  if (MEDIA_AND_TV.test(ua)) return "media player or TV";
  // a bare messaging name ("Viber") is how some link-preview fetchers announce themselves: the app says more
  if (
    PERSONAL_APP.test(ua) && /\d/.test(ua) &&
    (!SERVICE_NAMED_APP.test(ua) || /^(?:Mozilla|Opera)\//.test(ua) || APP_PLATFORM.test(ua))
  ) {
    return "mail, office, messaging app or in-app browser";
  }
  if (APP_STACK.test(ua) || APP_BUILD.test(ua)) return "native app";
  if (DEVICE_MODEL.test(ua)) return "app on a phone or tablet";
  if (FEED_READER.test(ua)) return "feed reader";
  return null;
}
