/**
 * Builds tests/fixtures/reviews/minibar_reviews.json from the English app-review classification set of
 * Mini-BAR (Wei, Courbis, Lambolais, Xu, Bernard, Dray: "Zero-shot Bilingual App Reviews Mining with Large
 * Language Models", ICTAI 2023; repository github.com/Jl-wei/mini-bar, MIT licence, Copyright (c) 2023
 * Jialiang Wei). 6,000 real Google Play reviews of three health apps (Garmin Connect, Huawei Health, Samsung
 * Health), each with its stars and the authors' labels: problem report, feature request, or irrelevant (a
 * review may be both a problem report and a feature request). Sources and licence:
 * tests/fixtures/reviews/SOURCES.md.
 *   deno run -A scripts/import_minibar_reviews.ts <folder holding "<App>.en.csv" from dataset/for_classification>
 * The folder can be filled from a clone at commit bb6a7cfa064ebb4afbdd3853e7dbe6e31e0d3649 with
 *   git show "HEAD:dataset/for_classification/Garmin Connect.en.csv" > "Garmin Connect.en.csv" (and the two others).
 * Deterministic: the same files give the same JSON (rows in file order, ids from the app and the row number).
 */
const APPS = ["Garmin Connect", "Huawei Health", "Samsung Health"] as const;
const OUT = new URL("../tests/fixtures/reviews/minibar_reviews.json", import.meta.url).pathname;

export interface MinibarReview {
  id: string;
  app: string;
  stars: number;
  problem_report: boolean;
  feature_request: boolean;
  text: string;
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += '"', i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), field = "";
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field), rows.push(row), row = [], field = "";
    } else field += ch;
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows.filter((r) => r.length > 1 || r[0] !== "");
}

const slug = (app: string) => app.split(" ")[0].toLowerCase();

export function minibarReviews(app: string, csv: string): MinibarReview[] {
  const [head, ...rows] = csvRows(csv);
  const col = (name: string) => {
    const i = head.indexOf(name);
    if (i < 0) throw new Error(`${app}: no column "${name}" in ${head.join(",")}`);
    return i;
  };
  const text = col("data"), score = col("score"), pr = col("problem_report"), fr = col("feature_request");
  const lang = col("ori_lang");
  return rows.flatMap((r, i) => {
    const stars = Number(r[score]);
    if (r[lang] !== "en" || !r[text].trim() || !(stars >= 1 && stars <= 5)) return [];
    return [{
      id: `${slug(app)}:${i}`,
      app,
      stars,
      problem_report: r[pr] === "1",
      feature_request: r[fr] === "1",
      text: r[text].trim(),
    }];
  });
}

if (import.meta.main) {
  const dir = Deno.args[0];
  if (!dir) {
    console.error('usage: deno run -A scripts/import_minibar_reviews.ts <folder with "<App>.en.csv">');
    Deno.exit(2);
  }
  const all: MinibarReview[] = [];
  for (const app of APPS) all.push(...minibarReviews(app, await Deno.readTextFile(`${dir}/${app}.en.csv`)));
  await Deno.writeTextFile(OUT, JSON.stringify(all, null, 2) + "\n");
  // As the repository's formatter leaves it, so a formatting pass over the tree changes nothing.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", OUT] }).output();
  for (const app of APPS) {
    const rows = all.filter((r) => r.app === app);
    console.log(
      `${app}: ${rows.length} reviews, ${rows.filter((r) => r.problem_report).length} problem reports, ` +
        `${rows.filter((r) => r.feature_request).length} feature requests`,
    );
  }
  console.log(`wrote ${OUT}`);
}
