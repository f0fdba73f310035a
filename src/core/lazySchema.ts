/**
 * A schema built the first time it is used. Building a large zod schema costs time at module
 * load (for the extension, before the first paint of its views); schemas that only some paths
 * use are wrapped in this so that loading the module costs nothing. The value stands in for the
 * schema itself: `parse`, `safeParse`, composition into other schemas and `instanceof` all reach
 * the schema `build` returns, built once.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const real = (): T => (schema ??= build());
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
