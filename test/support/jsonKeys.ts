/** `value` with the keys of each of its objects in the order `order` gives them (arrays keep theirs). */
export function withKeysIn(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => withKeysIn(item, order));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty, not assignment: a key "__proto__" (which JSON.parse makes an own key) stays a key.
    for (const key of order(Object.keys(value))) {
      Object.defineProperty(out, key, { value: withKeysIn((value as Record<string, unknown>)[key], order), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/**
 * A tool call's arguments as the runaway guard's rule reads them, the tests' oracle: the text of
 * their JSON value with every object's keys sorted; a text that is not JSON is itself.
 */
export function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(withKeysIn(JSON.parse(text), (keys) => keys.sort()));
  } catch {
    return text; // not JSON: compared as written
  }
}
