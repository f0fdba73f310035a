import type { Disposable } from '../events';
import type { Agent } from './agent';
import { RuntimeEventChannel } from './runtimeEvent';

interface Entry {
  agent: Agent;
  /** The live agent whose turn holds this one (one-shot children); none for an unowned agent. */
  owner: Agent | undefined;
  /** The live agent that created this one, if any: lineage for display and listing. */
  parent: Agent | undefined;
}

export type RegistryChange = { type: 'added' | 'removed'; agent: Agent };

/**
 * The process-local map of live agents (`ctx.agents`). Identity is by object: a stale Agent
 * that reuses a live id is not live. `unowned()` are the live agents with no runtime owner: roots
 * and continuable children (whose Activation, not their parent, owns them). Only they may ask the
 * human. `roots()` and `isRoot()` are the same two questions under the names the design notes
 * give them (`ctx.agents.roots()`); elsewhere "root" is only an agent of kind `root`.
 * Arrivals and departures are announced on the core's one event channel (`agent_added`,
 * `agent_removed`), which the runtime passes in; a registry made on its own has a channel of
 * its own.
 */
export class AgentRegistry {
  private readonly entries = new Map<string, Entry>();
  /** Live children per creator, so limits and listing never scan the whole registry. */
  private readonly kids = new Map<Agent, Set<Agent>>();

  constructor(private readonly events: RuntimeEventChannel = new RuntimeEventChannel()) {}

  /** Additions and removals only: a view of the event channel for listeners that need no more. */
  readonly onDidChange = (listener: (change: RegistryChange) => void): Disposable =>
    this.events.onEvents(['agent_added', 'agent_removed'], (e) => listener({ type: e.type === 'agent_added' ? 'added' : 'removed', agent: e.agent }));

  add(agent: Agent, relations: { owner?: Agent; parent?: Agent } = {}): void {
    const existing = this.entries.get(agent.id);
    if (existing && existing.agent !== agent && !existing.agent.disposed) {
      throw new Error(`An agent with id ${agent.id} is already live.`);
    }
    const parent = relations.parent ?? relations.owner;
    if (existing) this.unlink(existing);
    this.entries.set(agent.id, { agent, owner: relations.owner, parent });
    if (parent) {
      let set = this.kids.get(parent);
      if (!set) this.kids.set(parent, (set = new Set()));
      set.add(agent);
    }
    if (this.events.wants('agent_added')) this.events.fire({ type: 'agent_added', agent });
  }

  /** Removes the entry only if it is this exact object. */
  remove(agent: Agent): boolean {
    const entry = this.entries.get(agent.id);
    if (!entry || entry.agent !== agent) return false;
    this.entries.delete(agent.id);
    this.unlink(entry);
    if (this.events.wants('agent_removed')) this.events.fire({ type: 'agent_removed', agent, parent: entry.parent });
    return true;
  }

  get(id: string): Agent | undefined {
    return this.entries.get(id)?.agent;
  }

  isLive(agent: object): boolean {
    const id = (agent as { id?: unknown }).id;
    return typeof id === 'string' && this.entries.get(id)?.agent === agent;
  }

  ownerOf(agent: Agent): Agent | undefined {
    return this.entryOf(agent)?.owner;
  }

  parentOf(agent: Agent): Agent | undefined {
    return this.entryOf(agent)?.parent;
  }

  /** Whether this exact object is live and has no runtime owner. */
  isUnowned(agent: object): boolean {
    const id = (agent as { id?: unknown }).id;
    if (typeof id !== 'string') return false;
    const entry = this.entries.get(id);
    return entry !== undefined && entry.agent === agent && entry.owner === undefined;
  }

  /** The live agents with no runtime owner, in the order they were added. */
  unowned(): Agent[] {
    const out: Agent[] = [];
    for (const e of this.entries.values()) if (!e.owner) out.push(e.agent);
    return out;
  }

  /** `isUnowned`, under the design notes' name (`ctx.agents.roots()`): it is not about `kind === 'root'`. */
  isRoot(agent: object): boolean {
    return this.isUnowned(agent);
  }

  /** `unowned()`, under the design notes' name (`ctx.agents.roots()`): continuable children are in it too. */
  roots(): Agent[] {
    return this.unowned();
  }

  /** Live agents held by `owner`'s turns. */
  ownedBy(owner: Agent): Agent[] {
    return this.childrenOf(owner).filter((a) => this.entries.get(a.id)?.owner === owner);
  }

  /** How many live agents `parent` created (one-shot and continuable). */
  liveChildCount(parent: Agent): number {
    return this.kids.get(parent)?.size ?? 0;
  }

  /** Live agents created by `parent`, in creation order. */
  childrenOf(parent: Agent): Agent[] {
    const set = this.kids.get(parent);
    return set ? [...set].sort(byCreation) : [];
  }

  /** Live agents whose creator is no longer live (or who had none): the tree's top level. */
  topLevel(): Agent[] {
    const out: Agent[] = [];
    for (const e of this.entries.values()) if (!e.parent || !this.isLive(e.parent)) out.push(e.agent);
    return out.sort(byCreation);
  }

  all(): Agent[] {
    return [...this.entries.values()].map((e) => e.agent);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Stops announcing: nothing is fired after this. */
  dispose(): void {
    this.events.dispose();
  }

  private unlink(entry: Entry): void {
    if (!entry.parent) return;
    const set = this.kids.get(entry.parent);
    set?.delete(entry.agent);
    if (set && set.size === 0) this.kids.delete(entry.parent);
  }

  private entryOf(agent: Agent): Entry | undefined {
    const entry = this.entries.get(agent.id);
    return entry && entry.agent === agent ? entry : undefined;
  }
}

/** Siblings are ordered by creation order, then id. */
export function byCreation(a: Agent, b: Agent): number {
  return a.creationOrder - b.creationOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
