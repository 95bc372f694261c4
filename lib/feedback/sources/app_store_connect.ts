/**
 * App Store Connect API, for own App Store apps: `GET /v1/apps/{id}/customerReviews` (newest first, 200 a
 * page, developer responses included), authorized by an ES256 JWT signed with the team's API key (issuer
 * id, key id, .p8 private key), valid 20 minutes at most as Apple requires.
 */
import { importPKCS8, SignJWT } from "jose";
import type { IncomingReview } from "../types.ts";
import type { AppStoreConnectCredential } from "../credentials.ts";
import { fetchJson, SourceError, str } from "./http.ts";
import type { Page } from "./page.ts";

export const ASC_BASE = "https://api.appstoreconnect.apple.com";

export async function ascToken(cred: AppStoreConnectCredential, nowMs: number): Promise<string> {
  let key: CryptoKey;
  try {
    key = await importPKCS8(cred.private_key, "ES256");
  } catch {
    throw new SourceError("App Store Connect: the private key is not a PKCS#8 ES256 key (.p8 file)");
  }
  const iat = Math.floor(nowMs / 1000);
  return await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: cred.key_id, typ: "JWT" })
    .setIssuer(cred.issuer_id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 15 * 60)
    .setAudience("appstoreconnect-v1")
    .sign(key);
}

interface Resource {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: { type: string; id: string } | null }>;
}

/** One page of reviews; `cursor` is the previous page's `links.next` (a full URL), null for the first. */
export async function ascReviewsPage(
  fetcher: typeof fetch,
  base: string,
  appId: string,
  token: string,
  cursor: string | null,
): Promise<Page> {
  const url = cursor ??
    `${base}/v1/apps/${
      encodeURIComponent(appId)
    }/customerReviews?limit=200&sort=-createdDate&include=response`;
  if (!url.startsWith(base)) throw new SourceError("App Store Connect: a next link outside the API");
  const body = await fetchJson(
    fetcher,
    url,
    { headers: { authorization: `Bearer ${token}` } },
    "App Store Connect",
  ) as {
    data?: Resource[];
    included?: Resource[];
    links?: { next?: string };
  };
  if (!Array.isArray(body?.data)) throw new SourceError("App Store Connect: no data list in the answer");
  const responses = new Map<string, Resource>();
  for (const inc of body.included ?? []) {
    if (inc.type === "customerReviewResponses") responses.set(inc.id, inc);
  }
  const reviews: IncomingReview[] = [];
  for (const d of body.data) {
    const a = d.attributes ?? {};
    const rating = Number(a.rating);
    const created = Date.parse(String(a.createdDate ?? ""));
    if (!d.id || !(rating >= 1 && rating <= 5) || !Number.isFinite(created)) continue;
    const respRef = d.relationships?.response?.data;
    const resp = respRef ? responses.get(respRef.id)?.attributes : undefined;
    const replyText = str(resp?.responseBody);
    reviews.push({
      id: d.id,
      rating,
      title: str(a.title),
      text: str(a.body) ?? "",
      language: null,
      country: territoryToCountry(str(a.territory)),
      version: null,
      created_at: created,
      updated_at: null,
      reply: replyText
        ? { text: replyText, at: Date.parse(String(resp?.lastModifiedDate ?? "")) || null }
        : null,
      author: str(a.reviewerNickname),
    });
  }
  return { reviews, next: str(body.links?.next) };
}

/** Apple gives ISO 3166-1 alpha-3 territories ("USA"); answers use alpha-2 where it is known. */
const ALPHA3: Record<string, string> = {
  USA: "US",
  GBR: "GB",
  DEU: "DE",
  FRA: "FR",
  CAN: "CA",
  AUS: "AU",
  JPN: "JP",
  ITA: "IT",
  ESP: "ES",
  NLD: "NL",
  BRA: "BR",
  MEX: "MX",
  IND: "IN",
  CHE: "CH",
  AUT: "AT",
  SWE: "SE",
  CHN: "CN",
  KOR: "KR",
};
function territoryToCountry(t: string | null): string | null {
  if (!t) return null;
  return ALPHA3[t] ?? t;
}
