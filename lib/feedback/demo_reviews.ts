/**
 * Generated but realistic reviews for `deno task dev`: an own iOS app and a followed competitor, a few
 * hundred reviews each over 60 days, seeded so every run gives the same ones. The own app's last version
 * brings a crash on login, so the answers have a rising theme to find.
 */
import type { Clock } from "../clock.ts";
import type { IncomingReview } from "./types.ts";
import { createApp, setListing, storeReviews } from "./store.ts";
import { DEMO_APPS } from "./demo_apps.ts";

type Template = [rating: number, title: string, text: string];

const OWN: Template[] = [
  [5, "Love it", "Love this app, checkout is quick and the deals are great."],
  [5, "Great shopping app", "Great app, easy to use and delivery tracking works perfectly."],
  [4, "Nice", "Nice app, but please add a dark mode for night shopping."],
  [4, "Good but", "Good selection. Would be great to filter by size in the search."],
  [2, "Slow", "The app is slow to load and drains my battery quickly."],
  [1, "Too expensive", "The new premium subscription is way too expensive for what it offers."],
  [3, "Notifications", "Too many notifications about sales, I can't turn some of them off."],
  [2, "Support never answered", "Customer support never replied to my email about a missing refund."],
  [5, "Perfect", "Does exactly what I need. Highly recommend."],
  [4, "Wishlist", "I wish I could share my wishlist with family. Otherwise great."],
  [1, "Lost my cart", "The app lost my cart and saved addresses after the sync, very annoying."],
  [3, "Question", "How do I change the delivery address after ordering?"],
  [2, "Privacy", "Why does it need access to my contacts and location? Feels like tracking."],
  [5, "Fast", "Fast and simple, I order every week."],
];
const CRASH: Template[] = [
  [1, "Crashes on login", "Since the update the app crashes every time I log in. Please fix!"],
  [1, "Can't sign in", "Can't sign in anymore, it just shows a white screen and closes."],
  [2, "Crashing", "Keeps crashing at checkout since version 3.2, contact me at shopper@example.com."],
];
const RIVAL: Template[] = [
  [2, "Ads everywhere", "Too many ads between the products, it ruins browsing."],
  [4, "Good prices", "Good prices and the app works fine most of the time."],
  [1, "Login broken", "Login does not work, stuck on the loading screen."],
  [5, "Great", "Great app, love the daily deals."],
  [3, "Meh", "Search is confusing and the filters are hard to find."],
  [2, "Battery", "Drains the battery even in the background."],
];
const GERMAN: Template[] = [
  [2, "Stürzt ab", "Die App stürzt beim Bezahlen ständig ab, bitte beheben."],
  [5, "Super", "Sehr gute App, schnelle Lieferung und einfache Bedienung."],
];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function demoReviews(
  kind: "own" | "rival",
  count: number,
  end: number,
  seed: number,
): IncomingReview[] {
  const rand = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const out: IncomingReview[] = [];
  for (let i = 0; i < count; i++) {
    const daysAgo = rand() * 60;
    const recent = daysAgo < 14;
    const version = kind === "own" ? (recent ? "3.2.0" : daysAgo < 35 ? "3.1.2" : "3.1.0") : "8.4";
    let t: Template;
    if (kind === "rival") t = pick(RIVAL);
    else if (rand() < 0.05) t = pick(GERMAN);
    else if (recent && rand() < 0.3) t = pick(CRASH);
    else t = pick(OWN);
    const at = Math.floor(end - daysAgo * 86_400_000);
    out.push({
      id: `${kind}-${seed}-${i}`,
      rating: t[0],
      title: t[1],
      text: t[2],
      language: null,
      country: pick(["US", "GB", "DE", "CA"]),
      version,
      created_at: at,
      updated_at: at,
      reply: kind === "own" && t[0] <= 2 && rand() < 0.4
        ? { text: "Sorry about this! Please write to support so we can help.", at: at + 3_600_000 }
        : null,
      author: `demo reviewer ${Math.floor(rand() * 10_000)}`,
    });
  }
  return out;
}

/** The demo organization's apps: its iOS touchpoint as an own app, and a followed competitor. */
export async function seedDemoFeedback(
  kv: Deno.Kv,
  clock: Clock,
  o: { org: string; iosTouchpoint: string; domain: string },
): Promise<{ own: number; followed: number }> {
  const now = clock.now();
  // Marked demo: the App Store id is made up, and the review job must not ask the public feed for it.
  const own = await createApp(kv, clock, o.org, { ...DEMO_APPS[0], touchpoint: o.iosTouchpoint, demo: true });
  const rival = await createApp(kv, clock, o.org, { ...DEMO_APPS[1], touchpoint: null, demo: true });
  await setListing(kv, o.org, own.id, {
    name: "Demo Shop",
    developer: "Demo Shop GmbH",
    developer_website: `https://${o.domain}/`,
    version: "3.2.0",
    fetched_at: now,
  });
  await setListing(kv, o.org, rival.id, {
    name: "RivalMart",
    developer: "RivalMart Inc.",
    developer_website: "https://rivalmart.example/",
    version: "8.4",
    fetched_at: now,
  });
  const a = await storeReviews(kv, own, "import", demoReviews("own", 320, now, 11));
  const b = await storeReviews(kv, rival, "import", demoReviews("rival", 160, now, 12));
  return { own: a.stored, followed: b.stored };
}
