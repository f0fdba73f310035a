/**
 * A value built the first time it is asked for, then kept: `const fooSchema = once(() =>
 * z.object(...))`, read as `fooSchema()`. Building a zod schema costs time, and a module's
 * schemas would otherwise all be built when it loads (for the extension, before the first paint
 * of its views); each one is built on its first use instead, by the path that needs it.
 *
 * Mutation runs replace this module with one that builds again for each planted bug and each
 * test (scripts/mutation/buildPerMutant.cjs): keep it to this one export.
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
