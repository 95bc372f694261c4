/** Bounded concurrency for reads: many KV calls in flight, but never more than a few at once. */

/** `fn` over `items`, at most `width` at a time, answers in the items' order. */
export async function inBatches<T, R>(
  items: T[],
  width: number,
  fn: (t: T, i: number) => Promise<R> | R,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
