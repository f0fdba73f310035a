/**
 * One abort listener per signal, fanning out to a set of callbacks. A turn that holds a
 * thousand one-shot children would otherwise carry a thousand EventTarget listeners, whose
 * removal is linear each: fan-out cost would grow with the square of the children.
 */
const fanouts = new WeakMap<AbortSignal, Set<() => void>>();

export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  let set = fanouts.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    set = callbacks;
    fanouts.set(signal, callbacks);
    signal.addEventListener(
      'abort',
      () => {
        for (const cb of [...callbacks]) cb();
        callbacks.clear();
      },
      { once: true },
    );
  }
  set.add(callback);
  const registered = set;
  return () => {
    registered.delete(callback);
  };
}
