/**
 * A part's columns made straight from the generator's drafts: the batch `buildEventBatch` makes of the
 * drafts' stored records (output.ts `storedEvent`), column for column and code for code, without making the
 * records, their property objects and device-time strings (at 10M events up to 1.5M drafts wait, and each
 * record was made, sorted, walked and dropped). tests/lib/demo/draft_batch_test.ts compares the two.
 */
import { ELEMENT_PLAIN, FORM_ELEMENT, withFormElement } from "../enrich/element.ts";
import { type Batch, narrow, type StrCol, strCol } from "../parts/columns.ts";
import { numCol } from "../parts/columns.ts";
import { OWN_NAME_CHARS, PROP_COLUMNS } from "../parts/event_batch.ts";
import type { Draft } from "./model.ts";
import { noTurns, type Turn } from "../turns.ts";
import { plainOf, type Shared, shared, storedProperties, type Target, urlOf } from "./output.ts";

/** A stored record's device time read back from its ISO string: whole milliseconds (the Date time value). */
const dtOf = (d: Draft) => Math.trunc(d.deviceTime);

/** The stored records' batch order (event_batch.ts `batchOrder`): visitor, session, receive time, device
 * time, sequence number, id. */
const draftOrder = (a: Draft, b: Draft) =>
  a.anon < b.anon
    ? -1
    : a.anon > b.anon
    ? 1
    : a.session < b.session
    ? -1
    : a.session > b.session
    ? 1
    : a.t - b.t || dtOf(a) - dtOf(b) || a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A string column as `strCol` makes it (codes by first appearance of each text), where row `rows[j]` (row j
 * without `rows`) has the text `text(keys[j])` and every other row none: a key is cheaper to look up than its
 * text (an object shared by rows, a string whose hash is kept, a number), so a text is made and looked up
 * once per distinct key, not per row.
 */
function keyedCol(
  n: number,
  keys: ArrayLike<unknown>,
  text: (k: unknown) => string | null | undefined,
  rows?: ArrayLike<number>,
): StrCol {
  const byKey = new Map<unknown, number>(), byText = new Map<string, number>();
  const dict: string[] = [];
  const codes = new Uint32Array(n);
  let lastKey: unknown = byKey, lastCode = 0; // byKey: no row's key
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j], i = rows ? rows[j] : j;
    if (k === lastKey) {
      codes[i] = lastCode;
      continue;
    }
    let c = byKey.get(k);
    if (c === undefined) {
      const s = text(k);
      if (s === null || s === undefined) c = 0;
      else if ((c = byText.get(s)) === undefined) byText.set(s, c = dict.push(s));
      byKey.set(k, c);
    }
    codes[i] = lastCode = c;
    lastKey = k;
  }
  return { kind: "str", dict, codes: narrow(codes, dict.length) };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Names `properties` may give a draft's own props: a draft whose props hold one is walked as its record's. */
const DERIVED = ["path", "url", "referrer", FORM_ELEMENT, ELEMENT_PLAIN];

/**
 * Calls `f` with each property of the draft's record, in the record's order (output.ts `properties`, then
 * the form element ingest derives), without making the object; `url(d)` answers the same string object for
 * the same plain page URL.
 */
function eachProp(
  d: Draft,
  host: string,
  url: (d: Draft) => string,
  f: (k: string, v: unknown) => void,
): void {
  const p = d.props;
  if (DERIVED.some((k) => k in p)) {
    for (const [k, v] of Object.entries(storedProperties(d, host))) f(k, v);
    return;
  }
  f("path", d.path);
  f("url", url(d));
  for (const k in p) f(k, p[k]);
  if (d.landing && d.type === "$pageview" && d.source.referrer) f("referrer", d.source.referrer);
  if (d.type === "$autocapture") {
    const name = withFormElement(d.type, { form: p.form })[FORM_ELEMENT];
    if (name !== undefined) f(FORM_ELEMENT, name);
    const plain = plainOf(d);
    if (plain !== null) f(ELEMENT_PLAIN, plain);
  }
}

/**
 * The batch of the drafts' stored records (sorting `drafts` in place into batch order); `turn` lets the event
 * loop in between columns and slices of rows (the generator writes the last part meanwhile).
 */
export async function draftBatch(drafts: Draft[], target: Target, turn: Turn = noTurns): Promise<Batch> {
  const ev = drafts.sort(draftOrder);
  await turn();
  const n = ev.length;
  const plainUrls = new Map<string, string>();
  const url = (d: Draft) => {
    if (d.landing && d.source.utm) return urlOf(d, target.host);
    let u = plainUrls.get(d.path);
    if (u === undefined) plainUrls.set(d.path, u = `https://${target.host}${d.path}`);
    return u;
  };
  // each property's rows and values, in row order
  const found = new Map<string, { rows: number[]; values: unknown[] }>();
  let row = 0;
  const put = (k: string, v: unknown) => {
    let f = found.get(k);
    if (!f) found.set(k, f = { rows: [], values: [] });
    f.rows.push(row);
    f.values.push(v);
  };
  for (; row < n; row++) {
    if ((row & 4095) === 4095) await turn();
    eachProp(ev[row], target.host, url, put);
  }
  const own = [...found].filter(([k]) => k.length <= OWN_NAME_CHARS).map(([k, f]) =>
    [k, f.rows.length] as const
  )
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, PROP_COLUMNS).map(([k]) => k);
  const ownSet = new Set(own);
  const s = (get: (d: Draft) => string | null) => strCol(n, (i) => get(ev[i]), turn);
  const keyed = async (keys: ArrayLike<unknown>, text: (k: unknown) => string | null | undefined) => {
    await turn();
    return keyedCol(n, keys, text);
  };
  const shareds = ev.map(shared); // what a session's records share, one object for a run of them
  const cols: Batch["cols"] = {
    id: await s((d) => d.id),
    anon: await s((d) => d.anon),
    session: await s((d) => d.session),
    user: await s((d) => d.user),
    touchpoint: await s(() => target.touchpoint),
    platform: await s(() => "web"),
    event_type: await s((d) => d.type),
    screen: await s((d) => d.path),
    page: await s((d) => d.path),
    host: await s(() => target.host),
    fp: await keyed(ev.map((d) => d.fingerprint), json),
    element: await s((d) => d.element),
    ctx: await keyed(shareds, (k) => JSON.stringify((k as Shared).context)),
    country: await s((d) => d.visitor.country.code),
    city: await s((d) => d.visitor.city),
    as_org: await s(() => null),
    browser: await s((d) => (d.automated ? null : d.visitor.browser)),
    os: await s((d) => (d.automated ? null : d.visitor.os)),
    device_type: await s((d) => (d.automated ? "bot" : d.visitor.device.device)),
    referrer_host: await keyed(shareds, (k) => (k as Shared).referrer_host),
    source: await s((d) => d.source.source),
    channel: await s((d) => d.source.channel),
    utm: await keyed(shareds, (k) => json((k as Shared).utm)),
    traffic: await s((d) => d.automated?.traffic ?? "human"),
    crawler: await s((d) => d.automated?.crawler ?? null),
    // a device time made from whole or fractional milliseconds reads back as the string it was written from
    dts: await s(() => null),
    t: await numCol(n, (i) => ev[i].t, turn),
    dt: await numCol(n, (i) => dtOf(ev[i]), turn),
    seq: await numCol(n, (i) => ev[i].seq, turn),
    gap: await numCol(n, () => 0, turn),
    asn: await numCol(n, () => null, turn),
    "p*": own.length === found.size ? await s(() => null) : await s((d) => {
      const rest = Object.entries(storedProperties(d, target.host))
        .filter(([k]) => !ownSet.has(k));
      return rest.length ? JSON.stringify(Object.fromEntries(rest)) : null;
    }),
  };
  for (const k of own) {
    const { rows, values } = found.get(k)!;
    await turn();
    cols[`p:${k}`] = keyedCol(n, values, JSON.stringify, rows);
  }
  return { n, cols };
}
