/** Debian's Chromium driven by playwright-core, with the launch flags that work on our machines. */
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** A desktop Chrome user agent: the visitor is a person, not "HeadlessChrome". */
export const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export async function launchChromium(): Promise<Browser> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see tests/browser/README.md)`);
  }
  // playwright-core gives every launch a fresh temporary profile (--user-data-dir).
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
