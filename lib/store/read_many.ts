/** Reading many KV keys at once: KV's getMany takes at most 10 keys, so larger lists go in slices. */

/** The most keys one getMany reads. */
export const GET_MANY_MAX = 10;

/**
 * The entries of `keys`, in their order (a missing key gives its entry with a null value), read with up to
 * `inFlight` getMany calls at once.
 */
export async function readMany<T>(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
  inFlight = 32,
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out = new Array<Deno.KvEntryMaybe<T>>(keys.length);
  const pending: Promise<void>[] = [];
  for (let at = 0; at < keys.length; at += GET_MANY_MAX) {
    const from = at;
    pending.push(
      kv.getMany<T[]>(keys.slice(from, from + GET_MANY_MAX)).then((got) => {
        for (let j = 0; j < got.length; j++) out[from + j] = got[j];
      }),
    );
    if (pending.length >= inFlight) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  return out;
}
