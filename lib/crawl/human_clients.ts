/**
 * Agents of software people use: browsers, in-app browsers, native apps, media players and TVs, feature phones,
 * text and legacy browsers, mail and office clients. Each rule returns the reason it fired, or null.
 * These run after the strong automation signs (automation_signs.ts), so a rule here may be generous: an agent
 * that also says "bot", names an HTTP tool as its product or carries a "+http" contact URL never gets here.
 */

import { BROWSER, BROWSER_WORD, OTHER_BROWSER } from "./human_browsers.ts";
import { DEVICE_MODEL, FEATURE_PHONE, HANDSET } from "./human_devices.ts";
import { APP_BUILD, APP_STACK, FEED_READER, MEDIA_AND_TV, PERSONAL_APP } from "./human_apps.ts";

export { appOnPersonalDevice, appWithDeviceDetails } from "./human_apps.ts";

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
