import { warnProcess, type OnProblem } from '../problems';
import { fireTo, type Disposable } from '../events';
import type { Agent, AgentChange } from './agent';

/**
 * The one event channel of the core: every live agent's arrival and departure (fired by the
 * registry) and every change of an agent (fired by the runtime for the agent). Subscribers
 * filter what they need: the continuation manager reacts to turn ends and removals, the runtime
 * forgets an ended agent's approvals and closes its log, the editor repaints.
 */
export type RuntimeEvent =
  | { type: 'agent_added'; agent: Agent }
  /** `parent` is the agent that created it (live or not). */
  | { type: 'agent_removed'; agent: Agent; parent?: Agent }
  | { type: 'agent_changed'; agent: Agent; change: AgentChange };

/** What a listener may ask to hear: an arrival, a departure, or one kind of change. */
export type RuntimeEventName = 'agent_added' | 'agent_removed' | AgentChange['type'];

/** The events named `N`: an arrival or departure as it is, a change with its change narrowed. */
export type RuntimeEventOf<N extends RuntimeEventName> = N extends 'agent_added' | 'agent_removed'
  ? Extract<RuntimeEvent, { type: N }>
  : { type: 'agent_changed'; agent: Agent; change: Extract<AgentChange, { type: N }> };

/** Subscribes `listener` to the events with these names: the channel's `onEvents`, as its users take it. */
export type OnRuntimeEvents = <N extends RuntimeEventName>(names: readonly N[], listener: (event: RuntimeEventOf<N>) => void) => Disposable;

/** Every name, in one place: a listener that hears everything is on each list. */
const NAMES: readonly RuntimeEventName[] = [
  'agent_added',
  'agent_removed',
  'status',
  'turn_start',
  'turn_end',
  'log',
  'usage',
  'activity',
  'session_problem',
  'stop_overdue',
  'envelope',
  'disposed',
];

type Listener = (event: RuntimeEvent) => void;
type Lists = Record<RuntimeEventName, readonly Listener[]>;

interface Subscription {
  listener: Listener;
  /** The names it hears; undefined: all of them. */
  names: ReadonlySet<RuntimeEventName> | undefined;
}

/** Every name but `excluded`: for a listener that hears nearly everything (the names added later included). */
export function runtimeEventNamesBut<E extends RuntimeEventName>(...excluded: E[]): Exclude<RuntimeEventName, E>[] {
  return NAMES.filter((name): name is Exclude<RuntimeEventName, E> => !(excluded as RuntimeEventName[]).includes(name));
}

/** The name an event is filed under. */
export function runtimeEventName(event: RuntimeEvent): RuntimeEventName {
  return event.type === 'agent_changed' ? event.change.type : event.type;
}

function emptyLists(): Lists {
  const lists = {} as Record<RuntimeEventName, readonly Listener[]>;
  for (const name of NAMES) lists[name] = [];
  return lists;
}

/**
 * The channel's listeners, filed by the names they hear. An event reaches only the listeners
 * that asked for its name (and those that hear everything), in the order they subscribed:
 * a fan-out's agents change some thirty times each, and each of the editor's dozen listeners
 * used to be called, and to look at the event, for every one of those changes. `wants(name)`
 * tells the runtime whether an event of that name has anyone to reach, so it makes none that
 * has not. Lists are replaced, never changed, on (un)subscribing: a fire in progress goes on
 * with the list it started with.
 */
export class RuntimeEventChannel {
  private subscriptions: readonly Subscription[] = [];
  private lists: Lists = emptyLists();

  /** `onProblem` hears a listener that throws (the runtime passes its own). */
  constructor(private readonly onProblem: OnProblem = warnProcess) {}

  /** Hears every event. */
  readonly on = (listener: (event: RuntimeEvent) => void): Disposable => this.subscribe({ listener, names: undefined });

  /** Hears only the events with these names (an empty list hears none). */
  readonly onEvents: OnRuntimeEvents = (names, listener) =>
    this.subscribe({ listener: listener as Listener, names: new Set<RuntimeEventName>(names) });

  /** Whether an event with this name would reach any listener. */
  wants(name: RuntimeEventName): boolean {
    return this.lists[name].length > 0;
  }

  fire(event: RuntimeEvent): void {
    fireTo(this.lists[runtimeEventName(event)], event, this.onProblem);
  }

  dispose(): void {
    this.subscriptions = [];
    this.lists = emptyLists();
  }

  private subscribe(subscription: Subscription): Disposable {
    this.subscriptions = [...this.subscriptions, subscription];
    this.file();
    return {
      dispose: () => {
        if (!this.subscriptions.includes(subscription)) return;
        this.subscriptions = this.subscriptions.filter((s) => s !== subscription);
        this.file();
      },
    };
  }

  private file(): void {
    const lists = {} as Record<RuntimeEventName, readonly Listener[]>;
    for (const name of NAMES) lists[name] = this.subscriptions.filter((s) => s.names === undefined || s.names.has(name)).map((s) => s.listener);
    this.lists = lists;
  }
}
