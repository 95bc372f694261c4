/**
 * Deletes the entries a listing yields that `due` picks, 500 to a commit (within KV's limits): the sweeps of
 * addresses, rate counters and unknown-key strikes share it. Returns how many were deleted.
 */
export async function deleteWhere<T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  due: (entry: Deno.KvEntry<T>) => boolean,
): Promise<number> {
  let deleted = 0;
  let op = kv.atomic();
  let pending = 0;
  for await (const e of kv.list<T>(selector)) {
    if (!due(e)) continue;
    op.delete(e.key);
    deleted++;
    if (++pending >= 500) {
      await op.commit();
      op = kv.atomic();
      pending = 0;
    }
  }
  if (pending) await op.commit();
  return deleted;
}
