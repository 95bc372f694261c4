/**
 * Themes of a set of reviews: the taxonomy's topics, plus emergent themes (frequent key phrases that fit no
 * topic, clustered when they share a word), each with its review count, share of the analysed reviews,
 * sentiment, dominant intent and change against the previous period. A theme is rising when it has at
 * least MIN_RISING_REVIEWS reviews this period and its share grew to at least 1.5 times the previous one
 * and by at least 2 percentage points (a theme absent before rises with MIN_RISING_REVIEWS reviews).
 */
import type { Intent, SentimentLabel, StoredReview } from "../types.ts";
import { INTENTS } from "../types.ts";
import { TAXONOMY } from "./taxonomy.ts";
import { phraseKey } from "./match.ts";

export const MIN_RISING_REVIEWS = 10;
const RISE_FACTOR = 1.5;
const RISE_POINTS = 0.02;
/** An emergent theme needs this many reviews, and at least 0.5% of the analysed ones. */
export const MIN_EMERGENT_REVIEWS = 3;
const MAX_EMERGENT = 10;

export interface ThemeStat {
  id: string;
  label: string;
  kind: "taxonomy" | "emergent";
  reviews: number;
  share: number;
  sentiment: Record<SentimentLabel, number>;
  dominant_intent: Intent | null;
  previous_reviews: number;
  previous_share: number | null;
  share_change: number | null;
  rising: boolean;
  /** Reviews of this theme (current period), for example quotes. */
  members: StoredReview[];
  /** For emergent themes: the phrases clustered into it. */
  phrases?: string[];
}

export interface ThemeReport {
  analysed: number;
  previous_analysed: number;
  themes: ThemeStat[];
}

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;

function stat(
  id: string,
  label: string,
  kind: ThemeStat["kind"],
  members: StoredReview[],
  prevCount: number,
  analysed: number,
  prevAnalysed: number,
): ThemeStat {
  const sentiment = { positive: 0, neutral: 0, negative: 0 } as Record<SentimentLabel, number>;
  const intents = new Map<Intent, number>();
  for (const r of members) {
    if (r.analysis.sentiment) sentiment[r.analysis.sentiment]++;
    if (r.analysis.intent) intents.set(r.analysis.intent, (intents.get(r.analysis.intent) ?? 0) + 1);
  }
  const n = members.length;
  for (const k of Object.keys(sentiment) as SentimentLabel[]) sentiment[k] = n ? r4(sentiment[k] / n) : 0;
  let dominant: Intent | null = null;
  for (const i of INTENTS) if ((intents.get(i) ?? 0) > (dominant ? intents.get(dominant)! : 0)) dominant = i;
  const share = analysed ? n / analysed : 0;
  const prevShare = prevAnalysed ? prevCount / prevAnalysed : null;
  const rising = n >= MIN_RISING_REVIEWS &&
    (prevShare === null || prevShare === 0 ||
      (share >= prevShare * RISE_FACTOR && share - prevShare >= RISE_POINTS));
  return {
    id,
    label,
    kind,
    reviews: n,
    share: r4(share),
    sentiment,
    dominant_intent: dominant,
    previous_reviews: prevCount,
    previous_share: prevShare === null ? null : r4(prevShare),
    share_change: prevShare === null ? null : r4(share - prevShare),
    rising,
    members,
  };
}

export function themeReport(current: StoredReview[], previous: StoredReview[]): ThemeReport {
  const cur = current.filter((r) => r.analysis.analysed);
  const prev = previous.filter((r) => r.analysis.analysed);
  const byTopic = new Map<string, StoredReview[]>();
  const prevByTopic = new Map<string, number>();
  for (const r of cur) {
    for (const t of r.analysis.topics) {
      let list = byTopic.get(t);
      if (!list) byTopic.set(t, list = []);
      list.push(r);
    }
  }
  for (const r of prev) for (const t of r.analysis.topics) prevByTopic.set(t, (prevByTopic.get(t) ?? 0) + 1);
  const themes: ThemeStat[] = [];
  for (const t of TAXONOMY) {
    const members = byTopic.get(t.id) ?? [];
    const before = prevByTopic.get(t.id) ?? 0;
    if (members.length === 0 && before === 0) continue;
    themes.push(stat(t.id, t.label, "taxonomy", members, before, cur.length, prev.length));
  }
  themes.push(...emergent(cur, prev));
  themes.sort((a, b) => b.reviews - a.reviews || a.id.localeCompare(b.id));
  return { analysed: cur.length, previous_analysed: prev.length, themes };
}

/** Analyses before this version stored phrases as stems ("checkout sinc"): they name no theme. */
const READABLE_PHRASES_SINCE = 4;

/**
 * Frequent key phrases, grouped when their words share lemmas ("ruins browsing", "ruined browsing"), clustered
 * by a shared word, each cluster a theme named by its most frequent phrase as reviewers wrote it.
 */
function emergent(cur: StoredReview[], prev: StoredReview[]): ThemeStat[] {
  // Reviews by phrase as written, then phrases merged by key: a few hundred distinct phrases, not every review.
  const byPhrase = new Map<string, StoredReview[]>();
  for (const r of cur) {
    if (r.analysis.v < READABLE_PHRASES_SINCE) continue;
    for (const p of r.analysis.phrases) {
      let list = byPhrase.get(p);
      if (!list) byPhrase.set(p, list = []);
      list.push(r);
    }
  }
  const byKey = new Map<string, { label: string; labelCount: number; reviews: StoredReview[] }>();
  for (const [p, rs] of byPhrase) {
    const k = phraseKey(p);
    const g = byKey.get(k);
    if (!g) byKey.set(k, { label: p, labelCount: rs.length, reviews: rs });
    else {
      g.reviews = [...new Set([...g.reviews, ...rs])];
      if (rs.length > g.labelCount || (rs.length === g.labelCount && p < g.label)) {
        g.label = p;
        g.labelCount = rs.length;
      }
    }
  }
  const min = Math.max(MIN_EMERGENT_REVIEWS, Math.ceil(cur.length * 0.005));
  const frequent = [...byKey].filter(([, g]) => g.reviews.length >= min)
    .sort((a, b) => b[1].reviews.length - a[1].reviews.length || a[0].localeCompare(b[0])).slice(0, 200);
  const clusters: { words: Set<string>; keys: string[] }[] = [];
  for (const [k] of frequent) {
    const ws = k.split(" ");
    const home = clusters.find((c) => ws.some((w) => c.words.has(w)));
    if (home) {
      home.keys.push(k);
      for (const w of ws) home.words.add(w);
    } else if (clusters.length < MAX_EMERGENT) {
      clusters.push({ words: new Set(ws), keys: [k] });
    }
  }
  // The previous period in one pass: each review counted once per cluster its phrases meet.
  const clusterOf = new Map<string, number>();
  clusters.forEach((c, i) => c.keys.forEach((k) => clusterOf.set(k, i)));
  const keyOf = new Map<string, string>();
  const before = clusters.map(() => 0);
  for (const r of prev) {
    if (r.analysis.v < READABLE_PHRASES_SINCE) continue;
    let hit = 0; // bit set of clusters met (at most MAX_EMERGENT = 10)
    for (const p of r.analysis.phrases) {
      let k = keyOf.get(p);
      if (k === undefined) keyOf.set(p, k = phraseKey(p));
      const c = clusterOf.get(k);
      if (c !== undefined && !(hit & (1 << c))) {
        hit |= 1 << c;
        before[c]++;
      }
    }
  }
  return clusters.map((c, i) => {
    const members = [...new Set(c.keys.flatMap((k) => byKey.get(k)!.reviews))];
    const label = byKey.get(c.keys[0])!.label;
    const s = stat(`emergent:${label}`, label, "emergent", members, before[i], cur.length, prev.length);
    s.phrases = c.keys.slice(0, 5).map((k) => byKey.get(k)!.label);
    return s;
  });
}
