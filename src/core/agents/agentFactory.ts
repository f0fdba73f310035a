import { randomBytes } from 'node:crypto';
import { isoNow } from '../clock';
import { isArborError } from '../errors';
import { SESSION_FORMAT_VERSION, type AgentKind, type SessionHeader, type SessionLog, type SessionLogFactory } from '../sessions/types';
import { Agent, type AgentHost, type AgentRun, type TurnEngine } from './agent';
import type { AgentBounds } from '../definitions/bounds';
import type { AgentDefinition } from '../definitions/types';
import type { ModelProvider } from '../models/types';
import type { SessionSnapshot } from './sessionSnapshot';
import { anchorShape, STAND_IN } from '../shapeAnchor';

export interface AgentSpec {
  label: string;
  kind: AgentKind;
  run: AgentRun;
  /** The live agent that creates this one; none for a root. */
  parent?: Agent;
  planMode?: boolean;
  /** A session reopened from its log (resume), instead of a new one. */
  past?: SessionSnapshot;
  /** Runs the agent's turns instead of the model loop (an external agent). */
  engine?: TurnEngine<Agent>;
  /** The definition it is started with, and what it and the parent's bounds allow. */
  definition?: AgentDefinition;
  bounds?: AgentBounds;
  model?: ModelProvider;
}

/**
 * Makes agents: a new session (header and log, under a fresh id) or a reopened one, and the
 * Agent over it with its place in the run (delegation depth) and its creation order. It does
 * not register or start them; the runtime does.
 */
export class AgentFactory {
  private created = 0;

  constructor(
    private readonly host: AgentHost,
    private readonly sessions: SessionLogFactory,
    private readonly newId: (label: string) => string,
    private readonly workspace: string | undefined,
    /** The clock new sessions are dated by (the runtime's). */
    private readonly now: () => number = Date.now,
  ) {}

  create(spec: AgentSpec): Agent {
    const { label, kind, run, parent, past } = spec;
    const log = past?.log ?? this.createLog(this.header(spec));
    const agent = new Agent({
      id: log.header.id,
      label,
      kind,
      // Depth counts within the run: a resumed root starts a new run at 0, whatever its header recorded.
      delegationDepth: parent ? parent.delegationDepth + 1 : 0,
      log,
      host: this.host,
      run,
      creationOrder: ++this.created,
      planMode: spec.planMode,
      conversation: past?.conversation,
      turnsSoFar: past?.turns,
      pending: past?.pending,
      lastQueueId: past?.lastQueueId,
      engine: spec.engine,
      definition: spec.definition,
      bounds: spec.bounds,
      model: spec.model,
      plan: past?.plan,
    });
    if (past?.usage) agent.addUsage(past.usage.inputTokens, past.usage.outputTokens);
    if (past?.lastTurnEnd) agent.lastTurnEnd = past.lastTurnEnd;
    return agent;
  }

  private header({ label, kind, run, parent, engine, definition }: AgentSpec): SessionHeader {
    const id = this.newId(label);
    // The string events of the same millisecond share (clock.ts), not one per agent.
    const createdAt = isoNow(this.now);
    const delegationDepth = parent ? parent.delegationDepth + 1 : 0;
    const [parentSession, workspace, interactionMode] = [parent?.id, this.workspace, run.policy.mode];
    if (definition) {
      const header: SessionHeader = { type: 'header', version: SESSION_FORMAT_VERSION, id, createdAt, parentSession, delegationDepth, kind, label, workspace, interactionMode, definition: { name: definition.name, file: definition.file } };
      if (engine) header.external = engine.name;
      return header;
    }
    // Written out whole (no spread): a header is kept for the session's life, at its size.
    return engine
      ? { type: 'header', version: SESSION_FORMAT_VERSION, id, createdAt, parentSession, delegationDepth, kind, label, workspace, interactionMode, external: engine.name }
      : { type: 'header', version: SESSION_FORMAT_VERSION, id, createdAt, parentSession, delegationDepth, kind, label, workspace, interactionMode };
  }

  /** Session creation is exclusive: an id another window (or a past session) holds gets a new id. */
  private createLog(header: SessionHeader): SessionLog {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.sessions.create(header);
      } catch (err) {
        if (!isArborError(err, 'SESSION_EXISTS') || attempt >= 3) throw err;
        header = { ...header, id: this.newId(header.label) };
      }
    }
  }
}

/**
 * Session ids unique across reloads and windows: the label, the time, and a random part drawn
 * once per runtime followed by a counter (a random draw per id showed up in fan-out profiles).
 * The id is joined into one flat string: built with + or a template it would be a tree of
 * pieces (about 180 bytes where the flat string takes 50), kept for the agent's whole life.
 */
export function sessionIdMaker(): (label: string) => string {
  const nonce = randomBytes(4).toString('hex');
  let count = 0;
  let lastLabel: string | undefined;
  let lastSlug = '';
  let lastMs = -1;
  let lastTime = '';
  return (label) => {
    // Siblings of a fan-out share their label: its slug is worked out once, and the time's digits once a millisecond.
    if (label !== lastLabel) {
      lastLabel = label;
      lastSlug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24) || 'agent';
    }
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = ms.toString(36);
    }
    return [lastSlug, '-', lastTime, '-', nonce, (++count).toString(36)].join('');
  };
}

/** A root's label when none is given: the prompt's first line, shortened. */
export function labelFromPrompt(prompt: string): string {
  const line = prompt.trim().split('\n')[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line || 'Agent';
}

/**
 * The shapes of an agent and of its parts (its queue, its turns, its log) outlive the last agent
 * (shapeAnchor.ts): one made the way create() makes them, over stand-ins that hold nothing.
 */
anchorShape(new Agent({ id: '', label: '', kind: 'one-shot', delegationDepth: 0, log: STAND_IN, host: STAND_IN, run: STAND_IN, creationOrder: 0 }));
