import type { AfterReloadSetting } from './afterReloadSetting';

/**
 * What happens to the agents a restore found interrupted (a turn was running when the window
 * closed, reloaded or crashed): the setting `arbor.sessions.afterReload` decides, and an
 * unattended run follows its own policy. No `vscode` here: the notification is a small
 * interface, so every rule is tested in plain Node.
 *
 * Use (activation, after the restore; never awaited there, it resolves when the person answers):
 *
 *   void afterReload(restored.interrupted, {
 *     setting: host.settings().afterReload,          // parseAfterReloadSetting at the boundary
 *     resume: (agent) => ...,                        // lets the interrupted turn go on
 *     reveal: (agent) => ...,                        // Show: the agent's node in the Agents view
 *     notifications: vscode.window,                  // showInformationMessage
 *     isStillInterrupted: (agent) => ...,            // optional: live and still held
 *     onProblem: (agent, err) => log.warn(...),      // optional: a resume that failed (the others go on)
 *   });
 *
 * Invariants:
 * - `ask` (the default) shows one notification for all of them, naming the agent when there is
 *   one, with Resume (all) and Show; `resume` resumes them with no question; `keepStopped`
 *   leaves them held. Dismissing the notification leaves them held too: they go on when the
 *   person sends them a message, as after any Stop.
 * - An agent of an unattended run (scheduled, webhook, autonomous) never waits on the question:
 *   it is resumed at once, unless the setting is `keepStopped`.
 * - An agent is resumed at most once, and only while `isStillInterrupted` says so: one the person
 *   already sent a message to, or ended, before answering is left alone.
 * - One agent's failed resume is reported and does not keep the others from resuming.
 */

export { AFTER_RELOAD_SETTING, afterReloadSchema, parseAfterReloadSetting, type AfterReloadSetting } from './afterReloadSetting';

/** What this module reads of an agent: its name and whether a person attends its run. */
export interface InterruptedAgent {
  readonly label: string;
  readonly run: { readonly policy: { readonly unattended: boolean } };
}

/** The part of the editor's notification API used here (`vscode.window` fits it). */
export interface AfterReloadNotifications {
  /** Resolves with the action picked, or undefined when the notification was dismissed. */
  showInformationMessage(message: string, ...actions: string[]): PromiseLike<string | undefined>;
}

export interface AfterReloadDependencies<A extends InterruptedAgent> {
  setting: AfterReloadSetting;
  /** Lets the agent's interrupted turn go on (the release of its reload hold). */
  resume(agent: A): void | Promise<void>;
  /** Show: brings the agent's node into view. */
  reveal(agent: A): void | Promise<void>;
  notifications: AfterReloadNotifications;
  /** Whether the agent is still live and held as the restore left it; every agent is, by default. */
  isStillInterrupted?(agent: A): boolean;
  onProblem?(agent: A, error: unknown): void;
}

/** What was done: for the log, and for tests. */
export interface AfterReloadOutcome<A> {
  readonly resumed: readonly A[];
  /** `undefined` when nobody was asked. */
  readonly answer?: 'resume' | 'show' | 'dismissed';
}

export const RESUME_ALL = 'Resume all';
export const RESUME_ONE = 'Resume';
export const SHOW = 'Show';

/** Resumes, asks about or leaves the interrupted agents, as the setting and each run's policy say. */
export async function afterReload<A extends InterruptedAgent>(interrupted: readonly A[], deps: AfterReloadDependencies<A>): Promise<AfterReloadOutcome<A>> {
  const resumed: A[] = [];
  const still = (agent: A): boolean => deps.isStillInterrupted?.(agent) ?? true;
  const resumeAll = async (agents: readonly A[]): Promise<void> => {
    for (const agent of agents) {
      if (resumed.includes(agent) || !still(agent)) continue;
      try {
        await deps.resume(agent);
        resumed.push(agent);
      } catch (err) {
        deps.onProblem?.(agent, err);
      }
    }
  };
  if (deps.setting === 'keepStopped') return { resumed };
  const unattended = interrupted.filter((a) => a.run.policy.unattended);
  const attended = interrupted.filter((a) => !a.run.policy.unattended);
  await resumeAll(unattended);
  if (deps.setting === 'resume') {
    await resumeAll(attended);
    return { resumed };
  }
  if (attended.length === 0) return { resumed };
  const resume = attended.length === 1 ? RESUME_ONE : RESUME_ALL;
  const picked = await deps.notifications.showInformationMessage(interruptedMessage(attended), resume, SHOW);
  if (picked === resume) {
    await resumeAll(attended);
    return { resumed, answer: 'resume' };
  }
  if (picked === SHOW) {
    const first = attended.find(still);
    if (first) await deps.reveal(first);
    return { resumed, answer: 'show' };
  }
  return { resumed, answer: 'dismissed' };
}

/** "Demo lead was interrupted…" for one, "3 agents were interrupted… (Demo lead, Watcher and Researcher)" for more. */
export function interruptedMessage(agents: readonly InterruptedAgent[]): string {
  const when = 'when the window closed';
  if (agents.length === 1) return `"${agents[0].label}" was interrupted ${when}. It is stopped where it was and goes on when you resume it or send it a message.`;
  const names = agents.map((a) => `"${a.label}"`);
  const shown = names.length <= 3 ? joinNames(names) : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
  return `${agents.length} agents were interrupted ${when} (${shown}). They are stopped where they were and go on when you resume them or send them a message.`;
}

function joinNames(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
