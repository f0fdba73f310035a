// Values that deliberately do not have the type a signature asks for, shared by the unit
// suites, the integration suites and the benchmarks. A test uses them to prove that code parses
// what it is handed (a boolean sent as 'yes' by a model, a cyclic event, an object a caller
// forged) or to stand in for an object with only the fields the code under test reads.
import type { JsonlSessionStore } from '../../src/core/sessions';

/** `value`, typed as the T it only pretends to be. */
export function forged<T>(value: unknown): T {
  return value as T;
}

/**
 * Writes the store's session index now instead of a few seconds after a listing, so a second
 * store opened at once reads it (the index is a private cache of the store's catalog reader).
 */
export function saveSessionIndexNow(store: JsonlSessionStore): Promise<void> {
  return forged<{ catalog: { index: { save(): Promise<void> } } }>(store).catalog.index.save();
}
