/**
 * The theme taxonomy of app reviews (documented in docs/feedback.md). A review is about a topic when one of
 * the topic's words (in any inflection: matched after normalization) or phrases occurs in it. Words that
 * would match too much on their own ("work", "time") are only used inside phrases.
 */
import { lemma } from "../analysis/tokens.ts";

export interface TopicDef {
  id: string;
  label: string;
  words: string;
  phrases: string[];
}

export const TAXONOMY: readonly TopicDef[] = [
  {
    id: "crashes_bugs",
    label: "crashes and bugs",
    words: "crash crashes crashing crashy bug bugs buggy glitch glitchy error freeze frozen broken hang " +
      "corrupt stuck unresponsive",
    phrases: [
      "not working",
      "stopped working",
      "force close",
      "black screen",
      "white screen",
      "not open",
      "not responding",
      "has stopped",
      "keeps closing",
    ],
  },
  {
    id: "login_account",
    label: "login and account",
    words: "login logout signin password account username verification verify otp 2fa",
    phrases: [
      "log in",
      "log out",
      "sign in",
      "sign up",
      "signed out",
      "logged out",
      "two factor",
      "reset password",
      "verification code",
      "delete my account",
    ],
  },
  {
    id: "performance_battery",
    label: "performance and battery",
    words: "slow lag laggy sluggish battery drain performance memory ram cpu overheat heat loading",
    phrases: ["takes forever", "load time", "out of memory", "battery life", "drains battery", "too long"],
  },
  {
    id: "sync_data_loss",
    label: "sync and data loss",
    words: "sync synced synchronization backup restore lost erased wiped",
    phrases: [
      "data loss",
      "lost my",
      "lost all",
      "deleted my",
      "not sync",
      "all my data",
      "my progress",
      "my notes",
      "my files",
      "my photos",
      "export",
      "import",
    ],
  },
  {
    id: "notifications",
    label: "notifications",
    words: "notification notifications notify alert alerts reminder reminders =push badge",
    phrases: ["push notification", "no sound"],
  },
  {
    id: "ui_usability",
    label: "UI and usability",
    // "theme" would meet "them" (one lemma) and "screen" every "loading screen": both only in phrases.
    words: "ui interface design layout button buttons menu navigation font dark intuitive confusing " +
      "cluttered usability widget icon icons scroll",
    phrases: [
      "dark mode",
      "dark theme",
      "light theme",
      "color theme",
      "home screen",
      "screen size",
      "small screen",
      "split screen",
      "hard to find",
      "easy to use",
      "user friendly",
      "too small",
      "landscape mode",
      "user interface",
    ],
  },
  {
    id: "pricing_subscriptions",
    label: "pricing and subscriptions",
    // Paying is what a banking or shopping app is for ("paid my rent"): only paying for the app counts.
    words: "price pricing expensive overpriced subscription subscribe refund premium purchase paywall cost " +
      "charged cheaper money trial",
    phrases: [
      "in app purchase",
      "pro version",
      "free version",
      "paid version",
      "rip off",
      "per month",
      "per year",
      "pay to win",
      "pay for",
      "paid for",
      "have to pay",
      "paid app",
    ],
  },
  {
    id: "ads",
    label: "ads",
    // Exact forms: "advertised $2.99" is a price, not an ad.
    words: "ad ads =advert =adverts =advertisement =advertisements =advertising commercials popup",
    phrases: ["pop up", "too many ads", "ad free", "remove ads"],
  },
  {
    id: "customer_support",
    label: "customer support",
    // "contacted" would meet "contacts" (one lemma): the reviewer's address book is privacy, so only the
    // phrases of getting in touch count.
    words: "support developer developers dev devs response respond responded reply replied email " +
      "helpdesk",
    phrases: [
      "customer service",
      "customer support",
      "support team",
      "service desk",
      "no response",
      "never replied",
      "contact them",
      "contacted them",
      "contacted the",
      "contact the developer",
      "emailed them",
    ],
  },
  {
    id: "content",
    label: "content",
    words: "content article articles video videos music song songs episode episodes podcast podcasts news " +
      "recipe recipes level levels game games puzzle puzzles story stories =book =books =ebook =ebooks comic comics",
    phrases: ["new content", "more content", "more levels"],
  },
  {
    id: "privacy",
    label: "privacy",
    // "tracking" alone is mostly a delivery's or a habit's ("delivery tracking works perfectly"): only the
    // phrases that track the reviewer count.
    words: "privacy permission permissions tracker trackers spyware personal gdpr encryption " +
      "encrypted security secure",
    phrases: [
      "personal data",
      "my data",
      "access to my",
      "location access",
      "third party",
      "sell data",
      "tracking me",
      "tracks me",
      "track me",
      "tracking my",
      "tracks my",
      "like tracking",
      "my contacts",
    ],
  },
];

export interface CompiledTopic {
  id: string;
  label: string;
  /** Lemmas: any inflection matches. */
  words: Set<string>;
  /** Words written "=word" in the taxonomy: only that very form matches ("book", not "booked"). */
  exact: Set<string>;
  phrases: string[][];
}

const wordsOf = (t: TopicDef) => t.words.split(/\s+/).filter(Boolean);

export const TOPICS: readonly CompiledTopic[] = TAXONOMY.map((t) => ({
  id: t.id,
  label: t.label,
  words: new Set(wordsOf(t).filter((w) => !w.startsWith("=")).map(lemma)),
  exact: new Set(wordsOf(t).filter((w) => w.startsWith("=")).map((w) => w.slice(1))),
  phrases: t.phrases.map((p) => p.split(" ").map(lemma)),
}));

export const TOPIC_LABELS: Record<string, string> = Object.fromEntries(TAXONOMY.map((t) => [t.id, t.label]));

/** Every normalized word of any topic: a key phrase using one of them is not emergent. */
export const TOPIC_WORDS: ReadonlySet<string> = new Set(
  TOPICS.flatMap((t) => [...t.words, ...t.phrases.flat()]),
);

/** The exact-form topic words: a key phrase using one of them, as written, is not emergent either. */
export const TOPIC_EXACT: ReadonlySet<string> = new Set(TOPICS.flatMap((t) => [...t.exact]));
