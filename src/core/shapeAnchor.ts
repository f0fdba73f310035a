/**
 * One object of a class kept alive for the process's life, made from stand-ins so that it holds
 * nothing of any runtime: the anchor of the class's shape.
 *
 * Why: V8's optimized code of a hot path embeds the hidden classes (maps) of the objects it
 * handles, and holds them weakly. A map dies with the last object that has it, and the next full
 * collection then discards every piece of optimized code that embedded it (`--trace-deopt` says
 * "weak objects"). A turn's own objects (its loop, its abort, the stream read) all die when the
 * last turn ends, and an agent's (the agent, its queue, its turns, its log, its runaway count)
 * when the last subagent is removed: so the first fan-out after a full collection in a quiet
 * window compiled its whole path again, which made it slower than a runtime with fewer classes
 * on that path (bench:compare's W1 after a forced collection). An anchor keeps each map, and the
 * code that embeds it, alive, for a few hundred bytes in all, none of them per agent.
 *
 * An anchor is made by the class's own constructor, so that it takes the same map as the real
 * objects (their fields assigned in the same order, of the same kinds: a number field given
 * `undefined` here would make another map); test/unit/runtime/shapeAnchor.test.ts checks that it does.
 */
const anchors: object[] = [];

/** What an anchor is made over in place of a collaborator: an empty frozen object, typed as whatever the constructor asks for. */
export const STAND_IN: never = Object.freeze({}) as never;

/** Keeps `instance` alive as its class's anchor; returns it. */
export function anchorShape<T extends object>(instance: T): T {
  anchors.push(instance);
  return instance;
}

/** The anchors kept so far, in the order they were made (for the test that checks their maps). */
export function shapeAnchors(): readonly object[] {
  return anchors;
}
