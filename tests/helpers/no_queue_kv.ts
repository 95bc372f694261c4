/**
 * A KV that refuses queues the way KV Connect does (a remote KV through KV_URL: Deno Deploy's from outside,
 * or a self-hosted denokv): `enqueue`, a commit holding an enqueue, and `listenQueue` all fail with its
 * message. Everything else is the real KV underneath.
 */
export const KV_CONNECT_REFUSAL = "Enqueue operations are not supported in KV Connect";

export function kvWithoutQueues(kv: Deno.Kv): Deno.Kv & { refused: number } {
  const state = { refused: 0 };
  const refuse = () => {
    state.refused++;
    return Promise.reject(new TypeError(KV_CONNECT_REFUSAL));
  };
  const atomic = () => {
    const op = kv.atomic();
    let enqueued = false;
    const wrapped: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        if (name === "enqueue") {
          return () => {
            enqueued = true;
            return wrapped;
          };
        }
        if (name === "commit") return () => (enqueued ? refuse() : target.commit());
        const v = Reflect.get(target, name, target);
        return typeof v === "function"
          ? (...a: unknown[]) => {
            const r = v.apply(target, a);
            return r === target ? wrapped : r;
          }
          : v;
      },
    });
    return wrapped;
  };
  return new Proxy(kv, {
    get(target, name) {
      if (name === "refused") return state.refused;
      if (name === "enqueue" || name === "listenQueue") return refuse;
      if (name === "atomic") return atomic;
      const v = Reflect.get(target, name, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as Deno.Kv & { refused: number };
}
