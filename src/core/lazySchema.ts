import * as z from 'zod';

/**
 * A schema built the first time it is used. Building a large zod schema costs time at module
 * load (for the extension, before the first paint of its views); schemas that only some paths
 * use are wrapped in this so that loading the module costs nothing. The value stands in for the
 * schema itself: `parse`, `safeParse`, composition into other schemas, `instanceof`, its own
 * keys, its metadata and zod's JSON Schema converter all reach the schema `build` returns,
 * built once.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  let builtIn: string | undefined;
  const real = (): T => {
    const run = mutationRun();
    if (schema === undefined || run !== builtIn) {
      schema = build();
      builtIn = run;
      if (isZodSchema(schema)) followedByConverter(schema, stand);
    }
    return schema;
  };
  const stand = new Proxy({} as T, {
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    ownKeys: () => Reflect.ownKeys(real()),
    // Reported configurable: the stand-in's own (empty) target cannot vouch for a fixed property.
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return stand;
}

/**
 * Under mutation testing (Stryker), which test runs and which planted bug is active; undefined
 * otherwise. A schema cached across those runs would be built once, by whichever test came
 * first, with whichever bug was active then: a bug planted in `build` would go unseen by the
 * tests that cover it. So a mutation run builds each schema again per test and per bug.
 */
function mutationRun(): string | undefined {
  const stryker = (globalThis as { __stryker__?: { activeMutant?: string; currentTestId?: string } }).__stryker__;
  return stryker && `${stryker.activeMutant ?? ''}|${stryker.currentTestId ?? ''}`;
}

function isZodSchema(value: object): value is z.core.$ZodType {
  return '_zod' in value;
}

type SeenEntry = { schema: unknown };
type ConverterContext = { seen: Map<object, SeenEntry> };

/**
 * zod finds a schema's metadata (`.describe()`, `.meta()`) in a registry keyed by the schema
 * object, and its JSON Schema converter files its work under the object it was handed (the
 * stand-in) while the schema's own converter (for `.optional()`, `.default()`, a transform...)
 * looks itself up under the built object. The stand-in gets the same metadata, and while the
 * converter works on the stand-in the built object is filed under the same entry.
 */
function followedByConverter(built: z.core.$ZodType, stand: object): void {
  const meta = z.globalRegistry.has(built) ? z.globalRegistry.get(built) : undefined;
  if (meta) z.globalRegistry.add(stand as z.core.$ZodType, meta);
  const internals = built._zod as { processJSONSchema?: (ctx: ConverterContext, json: unknown, params: unknown) => void };
  const convert = internals.processJSONSchema;
  if (!convert) return;
  internals.processJSONSchema = (ctx, json, params) => {
    const standEntry = ctx.seen.get(stand);
    // The converter hands over the entry of the object it is converting: here, the stand-in's?
    if (!standEntry || standEntry.schema !== json) return convert(ctx, json, params);
    const builtEntry = ctx.seen.get(built);
    ctx.seen.set(built, standEntry);
    try {
      return convert(ctx, json, params);
    } finally {
      if (builtEntry) ctx.seen.set(built, builtEntry);
      else ctx.seen.delete(built);
    }
  };
}
