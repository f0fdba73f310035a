import type { Agent } from '../agents/agent';
import { newHold, type Hold } from '../agents/holds';
import type { SessionEvent } from '../sessions/types';
import { DEFAULT_RUNAWAY, RunawayDetector, runawaySettingsSchema, type RunawaySettings, type RunawaySettingsInput } from './runaway';

/** `hold` is the `runaway` hold the guard put on the agent, when the setting says to hold it. */
export type RunawayEvent = { type: 'runaway'; agent: Agent; reason: string; hold: Hold | undefined } | { type: 'agent_resumed'; agent: Agent };

const AGENT_RESUME_NOTE = '[Arbor] You were paused and the user let you go on. Continue where you left off, and do not repeat what did not work.';

/**
 * The runaway guards of every live agent: a detector per agent fed from its session events. A
 * warning is kept on the agent's run budget (`RunBudget.agentWarning`) until a person speaks to the
 * agent or resumes it; with `pauseAgent` on, the agent alone gets a `runaway` hold and is stopped
 * like a Stop (cause `budget`, queue held): its turn loop starts nothing until a person's message
 * or Resume releases the hold.
 */
export class RunawayGuard {
  private readonly detectors = new Map<Agent, RunawayDetector>();
  private settings: RunawaySettings;
  /** What every detector reads its settings through: one function for all of them, not one each. */
  private readonly currentSettings = (): RunawaySettings => this.settings;

  constructor(
    private readonly isReadOnlyTool: (name: string) => boolean,
    private readonly fire: (event: RunawayEvent) => void,
    private readonly isLive: (agent: Agent) => boolean,
    settings?: RunawaySettingsInput,
  ) {
    this.settings = settings ? runawaySettingsSchema().parse(settings) : DEFAULT_RUNAWAY;
  }

  /** The settings from now on (a bad value throws and changes nothing). */
  configure(settings: RunawaySettingsInput): void {
    this.settings = runawaySettingsSchema().parse(settings);
  }

  logged(agent: Agent, event: SessionEvent): void {
    if (event.type === 'tool_call') {
      const warning = this.detector(agent).toolCalled(event.call);
      if (warning) this.found(agent, warning);
    } else if (event.type === 'tool_result') {
      this.detectors.get(agent)?.toolFinished(event.name, event.isError === true);
    } else if (event.type === 'queued' && event.from === 'user') {
      // A person spoke to the agent: a warning or pause a guard left on it is over.
      if (agent.run.budget.agentWarning(agent.id) !== undefined || isHeld(agent)) this.clear(agent);
    }
  }

  /** The agent answered without tools: nothing is running away. */
  turnCompleted(agent: Agent): void {
    this.detectors.get(agent)?.reset();
  }

  /** Let an agent a guard paused go on (its warning is cleared too). */
  resume(agent: Agent): void {
    const wasHeld = isHeld(agent);
    this.clear(agent);
    if (wasHeld && this.isLive(agent) && !agent.disposed && agent.kind !== 'one-shot') {
      agent.send(AGENT_RESUME_NOTE, { from: 'system', wake: true });
    }
  }

  forget(agent: Agent): void {
    this.detectors.delete(agent);
  }

  dispose(): void {
    this.detectors.clear();
  }

  private clear(agent: Agent): void {
    agent.releaseHolds('person-message');
    agent.run.budget.warnAgent(agent.id, undefined);
    this.detectors.get(agent)?.reset();
    this.fire({ type: 'agent_resumed', agent });
  }

  private found(agent: Agent, warning: string): void {
    const budget = agent.run.budget;
    if (budget.agentWarning(agent.id) !== undefined) return;
    budget.warnAgent(agent.id, warning);
    const hold = this.settings.pauseAgent && agent.kind !== 'one-shot' ? newHold('runaway', { detail: `a runaway guard paused it: ${warning}` }) : undefined;
    if (hold) {
      agent.putHold(hold);
      agent.cancel('budget', { keepInbox: true });
    }
    this.fire({ type: 'runaway', agent, reason: warning, hold });
  }

  private detector(agent: Agent): RunawayDetector {
    let detector = this.detectors.get(agent);
    if (!detector) {
      detector = new RunawayDetector(this.currentSettings, this.isReadOnlyTool);
      this.detectors.set(agent, detector);
    }
    return detector;
  }
}

function isHeld(agent: Agent): boolean {
  return agent.holds.some((h) => h.reason === 'runaway');
}
