/**
 * The shapes of app-review feedback as stored in KV: apps (own touchpoints with a store id, or followed
 * store ids), their store listings, fetch status, and reviews with their analysis stored beside them.
 * A review's author is kept only as a hash, for deduplication; no answer ever carries it.
 */

export type Store = "app_store" | "google_play";
export const STORES: readonly Store[] = ["app_store", "google_play"];

/** Where reviews of an app come from. */
export type ReviewSource = "app_store_connect" | "google_play_api" | "app_store_feed" | "import";

export interface FeedbackApp {
  id: string;
  org: string;
  store: Store;
  /** App Store numeric id ("284882215") or Google Play package name ("com.example.app"). */
  store_id: string;
  /** The iOS or Android touchpoint this app is, when it is one of the organization's own touchpoints. */
  touchpoint: string | null;
  /** True for a store id an owner or admin added to follow (e.g. a competitor); false for a touchpoint. */
  followed: boolean;
  name: string;
  /** App Store countries whose public feed is read (followed App Store apps); default ["us"]. */
  countries: string[];
  created_at: string;
  /** True for the dev start's made-up apps: their reviews are generated here and no store is ever asked. */
  demo?: true;
}

/** The public store listing, refreshed daily; ownership (answer rule 3) is decided from it. */
export interface StoreListing {
  name: string | null;
  developer: string | null;
  developer_website: string | null;
  version: string | null;
  fetched_at: number;
}

export interface FetchStatus {
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_error_at: number | null;
  last_error: string | null;
  /** Failures in a row; the next attempt waits longer after each (see fetch_job.ts). */
  failures: number;
  next_attempt_at: number | null;
  /** Reviews stored new or changed by the last successful fetch. */
  last_stored: number;
  listing_error: string | null;
}

export type SentimentLabel = "positive" | "neutral" | "negative";
export const SENTIMENTS: readonly SentimentLabel[] = ["positive", "neutral", "negative"];

export type Intent =
  | "bug_report"
  | "feature_request"
  | "praise"
  | "question"
  | "price_complaint"
  | "other";
export const INTENTS: readonly Intent[] = [
  "bug_report",
  "feature_request",
  "praise",
  "question",
  "price_complaint",
  "other",
];

export interface ReviewAnalysis {
  v: number;
  /** ISO 639-1 code detected from the text (or given by the store), null when unknown. */
  language: string | null;
  /** False when the language is one the models do not cover: then sentiment, intent and themes are empty. */
  analysed: boolean;
  /** Sentiment of the text alone, -1..1 (null when not analysed). */
  text_score: number | null;
  /** The review's sentiment: the text's, with the star rating deciding where the two disagree. */
  sentiment: SentimentLabel | null;
  intent: Intent | null;
  /** Taxonomy topic ids (themes/taxonomy.ts). */
  topics: string[];
  /** Key phrases (lemmas joined by spaces) for emergent themes. */
  phrases: string[];
}

export interface StoredReview {
  v: 1;
  app: string;
  store: Store;
  /** The store's review id (or, for an import line without one, a hash of its content). */
  id: string;
  source: ReviewSource;
  rating: number; // 1..5
  title: string | null;
  text: string;
  /** As the store gave it; the analysis holds the detected language. */
  language: string | null;
  country: string | null;
  version: string | null;
  created_at: number; // ms
  updated_at: number; // ms, the store's last modification
  reply: { text: string; at: number | null } | null;
  /** SHA-256 of the author's name as the store gave it: for deduplication only, never answered. */
  author_hash: string | null;
  /** Hash of what the store can change (rating, title, text, reply, version): an edit changes it. */
  content_hash: string;
  analysis: ReviewAnalysis;
}

/** A review as a source hands it over, before it is stored. */
export interface IncomingReview {
  id: string;
  rating: number;
  title: string | null;
  text: string;
  language: string | null;
  country: string | null;
  version: string | null;
  created_at: number;
  updated_at: number | null;
  reply: { text: string; at: number | null } | null;
  author: string | null;
}
