/**
 * StoredHit[] ⇄ columnar batch, rows ordered by corrected timestamp. `verification` holds the effective
 * outcome when the part was built (a record under keys.verification wins over the arrival outcome);
 * rows still "pending" then are looked up again at query time.
 */
import type { StoredHit } from "../store/records.ts";
import {
  type Batch,
  type ColumnMaker,
  makeColumns,
  numAt,
  type NumCol,
  numCol,
  rowsInSlices,
  strAt,
  type StrCol,
  strCol,
} from "./columns.ts";
import { noTurns, type Turn } from "../turns.ts";
import { sortInSlices } from "./slice_sort.ts";

type Outcome = (h: StoredHit) => StoredHit["verification"];

/**
 * Builds the batch of hits (sorting them in place), each with its verification as `verification` says;
 * with `turn`, the event loop gets turns while they are sorted and between columns (compaction runs beside
 * ingest, and a question over a large raw tail beside everything else).
 */
export async function buildHitBatch(
  input: StoredHit[],
  verification: Outcome,
  turn: Turn = noTurns,
): Promise<Batch> {
  const { n, makers } = hitColumns(await sortInSlices(input, hitOrder, turn), verification);
  return { n, cols: await makeColumns(makers, turn) };
}

const hitOrder = (a: StoredHit, b: StoredHit) =>
  a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Lists how each column of the sorted hits is made. */
function hitColumns(hs: StoredHit[], verification: Outcome): { n: number; makers: ColumnMaker[] } {
  const n = hs.length;
  const s = (get: (h: StoredHit) => string | null) => (turn: Turn) => strCol(n, (i) => get(hs[i]), turn);
  const num = (get: (h: StoredHit) => number | null) => (turn: Turn) => numCol(n, (i) => get(hs[i]), turn);
  return {
    n,
    makers: Object.entries({
      id: s((h) => h.id),
      touchpoint: s((h) => h.touchpoint),
      host: s((h) => h.host),
      page: s((h) => h.path),
      method: s((h) => h.method),
      ua: s((h) => h.user_agent),
      referer_host: s((h) => h.referer_host),
      crawler: s((h) => h.crawler),
      vendor: s((h) => h.vendor),
      category: s((h) => h.category),
      site_file: s((h) => h.site_file),
      country: s((h) => h.geo.country),
      city: s((h) => h.geo.city),
      as_org: s((h) => h.geo.as_org),
      verification: s((h) => verification(h)),
      via: s((h) => h.via),
      t: num((h) => h.timestamp),
      rt: num((h) => h.received_at),
      status: num((h) => h.status),
      crawled: num((h) => (h.crawled ? 1 : 0)),
      asn: num((h) => h.geo.asn),
    }),
  };
}

/**
 * The stored records of a batch, in batch order; org and env come from the part. `turn` gives the event loop
 * a turn every 2,048 rows (compaction runs beside ingest).
 */
export function reconstructHits(
  b: Batch,
  org: string,
  env: StoredHit["env"],
  turn: Turn = noTurns,
): Promise<StoredHit[]> {
  return rowsInSlices(b.n, turn, (from, to) => reconstructRange(b, org, env, from, to));
}

function reconstructRange(
  b: Batch,
  org: string,
  env: StoredHit["env"],
  from: number,
  to: number,
): StoredHit[] {
  const S = (name: string) => b.cols[name] as StrCol;
  const N = (name: string) => b.cols[name] as NumCol;
  const out: StoredHit[] = [];
  for (let i = from; i < to; i++) {
    out.push({
      v: 1,
      id: strAt(S("id"), i)!,
      org,
      touchpoint: strAt(S("touchpoint"), i)!,
      env,
      received_at: N("rt").values[i],
      timestamp: N("t").values[i],
      host: strAt(S("host"), i)!,
      path: strAt(S("page"), i)!,
      method: strAt(S("method"), i)!,
      status: numAt(N("status"), i),
      user_agent: strAt(S("ua"), i)!,
      referer_host: strAt(S("referer_host"), i),
      crawler: strAt(S("crawler"), i)!,
      vendor: strAt(S("vendor"), i),
      category: strAt(S("category"), i) as StoredHit["category"],
      site_file: strAt(S("site_file"), i) as StoredHit["site_file"],
      crawled: N("crawled").values[i] === 1,
      geo: {
        country: strAt(S("country"), i),
        city: strAt(S("city"), i),
        asn: numAt(N("asn"), i),
        as_org: strAt(S("as_org"), i),
      },
      verification: strAt(S("verification"), i) as StoredHit["verification"],
      via: strAt(S("via"), i) as StoredHit["via"],
    });
  }
  return out;
}
