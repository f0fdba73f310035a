import * as vscode from 'vscode';
import { ArborError, messageOf, type Runtime } from '../../core';
import type { Agent, TurnEngine } from '../../core/agents';
import { commandLineOf, findExternalAgent, startExternalAgentTool, type ExternalAgentConfig, type ExternalChildStarter } from '../../core/external';
import type { SessionLog } from '../../core/sessions';
import { externalRunsPart } from '../parts';
import { ExternalAgentSettings } from './externalAgentSettings';

/** Turn errors that need the person to do something outside Arbor: said in a notification, not only the log. */
const NEEDS_ATTENTION = new Set(['EXTERNAL_AGENT_AUTH_REQUIRED', 'EXTERNAL_AGENT_START_FAILED', 'EXTERNAL_AGENT_CRASHED', 'EXTERNAL_AGENT_UNAUTHORIZED', 'EXTERNAL_AGENT_DISCONNECTED']);

export interface ExternalAgents {
  readonly settings: ExternalAgentSettings;
  /** Starts `config` as a root agent on `task`, asking for any secret it lacks; undefined when the person cancels. */
  run(config: ExternalAgentConfig, task: string): Promise<Agent | undefined>;
  /**
   * The engine that resumes a past session of a configured external agent from History
   * (session/load), asking for any secret it lacks; a typed error when it cannot (not
   * configured any more, no session/load, a secret not given).
   */
  engineForResume(log: SessionLog): Promise<TurnEngine<Agent>>;
  /**
   * The engine of an external agent a restore puts back (see core/external/restoreExternal.ts):
   * its own session loaded when the agent can, else a fresh one its node speaks of. It asks for
   * nothing (activation shows no input box): a typed error when the agent is not configured any
   * more (EXTERNAL_AGENT_CONFIG_INVALID) or a secret it needs is not stored
   * (EXTERNAL_AGENT_START_FAILED). `folder`: the agent's run folder (a worktree agent's).
   * Once the agent is rebuilt on it, `restartProcess(agent)` starts its process.
   */
  engineForRestore(log: Pick<SessionLog, 'header' | 'events'>, folder?: string): Promise<TurnEngine<Agent>>;
  /**
   * Starts a restored external agent's process now (not with its next message), and says in the
   * Arbor log whether it continued its own session or starts with a fresh memory; a start that
   * fails is logged and shown, and the agent's next message tries again. Nothing for an agent
   * that is not external. Never rejects.
   */
  restartProcess(agent: Agent): Promise<void>;
}

/**
 * **Arbor: Start External Agent...**, the `start_external_agent` tool for Arbor's agents (offered
 * while at least one external agent is configured), and what the person must hear about an
 * external agent: that it needs a sign-in, failed or crashed, and that a Stop is overdue (with
 * the offer to end its process).
 */
export function registerExternalAgents(context: vscode.ExtensionContext, runtime: Runtime, log: vscode.LogOutputChannel): ExternalAgents {
  const settings = new ExternalAgentSettings(context.secrets, (problem) => {
    log.warn(problem);
    void vscode.window.showWarningMessage(`Arbor: ${problem}`);
  });
  let tool: { dispose(): void } | undefined;
  const offerTool = (): void => {
    tool?.dispose();
    const startChild: ExternalChildStarter = (...args) => externalRunsPart().startExternalChild(...args);
    tool = settings.list().length > 0 ? runtime.registerTool(startExternalAgentTool(runtime, settings, startChild)) : undefined;
  };
  offerTool();

  const askSecrets = async (config: ExternalAgentConfig): Promise<Record<string, string> | undefined> => {
    const have = await settings.secrets(config);
    for (const variable of (config.secretEnv ?? [])) {
      if (have[variable]) continue;
      const value = await vscode.window.showInputBox({
        title: `${config.name}: ${variable}`,
        prompt: `The value of ${variable} for ${config.name}. It is kept in VS Code's secret storage, never in settings.`,
        password: true,
        ignoreFocusOut: true,
      });
      if (!value) return undefined;
      await settings.storeSecret(config, variable, value);
      have[variable] = value;
    }
    return have;
  };

  const run = async (config: ExternalAgentConfig, task: string): Promise<Agent | undefined> => {
    const secretEnv = await askSecrets(config);
    if (!secretEnv) return undefined;
    const agent = externalRunsPart().startExternalRoot(runtime, { config, prompt: task, secretEnv, token: () => settings.token(config) });
    log.info(`Started external agent "${agent.label}" (${agent.id}): ${commandLineOf(config)}`);
    return agent;
  };

  const engineForResume = async (past: SessionLog): Promise<TurnEngine<Agent>> => {
    const config = findExternalAgent(settings.list(), past.header.external ?? '');
    const secretEnv = await askSecrets(config);
    if (!secretEnv) throw new ArborError('EXTERNAL_AGENT_START_FAILED', `${config.name} was not resumed: it needs its secrets (${(config.secretEnv ?? []).join(', ')}).`, { name: config.name });
    return externalRunsPart().externalEngineForResume(runtime, past, { config, secretEnv, token: () => settings.token(config) });
  };

  const engineForRestore = async (past: Pick<SessionLog, 'header' | 'events'>, folder?: string): Promise<TurnEngine<Agent>> => {
    const config = findExternalAgent(settings.list(), past.header.external ?? '');
    const secretEnv = await settings.secrets(config);
    const missing = (config.secretEnv ?? []).filter((variable) => !secretEnv[variable]);
    if (missing.length > 0) {
      throw new ArborError('EXTERNAL_AGENT_START_FAILED', `${config.name} was not started again: ${missing.join(', ')} is not in VS Code's secret storage. Run it from Arbor to give it.`, { name: config.name, missing });
    }
    return externalRunsPart().externalEngineForRestore(runtime, past, { config, secretEnv, token: () => settings.token(config), folder });
  };

  const restartProcess = async (agent: Agent): Promise<void> => {
    if (!agent.engine) return;
    try {
      const started = await externalRunsPart().restartExternalProcess(agent);
      if (started) log.info(`"${agent.label}" (${agent.engine.name}) has its process again: ${started.loaded ? 'it continues its own session (session/load)' : (started.notice?.detail ?? 'a new session')}`);
    } catch (err) {
      if (agent.disposed) return;
      log.warn(`"${agent.label}" (${agent.engine.name}) could not start again: ${messageOf(err)}`);
      void vscode.window.showWarningMessage(`Arbor: ${agent.label} could not start again: ${messageOf(err)} Its next message tries again.`);
    }
  };

  context.subscriptions.push(
    { dispose: () => tool?.dispose() },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('arbor.externalAgents')) return;
      settings.reload();
      offerTool();
    }),
    vscode.commands.registerCommand('arbor.setExternalAgentToken', () => externalRunsPart().setExternalAgentToken(settings)),
    vscode.commands.registerCommand('arbor.runExternalAgent', async () => {
      const agents = settings.list();
      if (agents.length === 0) {
        const open = await vscode.window.showInformationMessage(
          'No external agent is configured. Add one to the user setting arbor.externalAgents, for example { "name": "Gemini", "command": "gemini", "args": ["--experimental-acp"] }.',
          'Open Settings',
        );
        if (open) await vscode.commands.executeCommand('workbench.action.openSettings', 'arbor.externalAgents');
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(
        agents.map((config) => ({ label: config.name, description: commandLineOf(config), config })),
        { title: 'Start External Agent', placeHolder: 'Which agent?' },
      );
      if (!picked) return undefined;
      const task = await vscode.window.showInputBox({ title: `Run ${picked.config.name}`, prompt: 'The task for the agent', ignoreFocusOut: true });
      if (!task?.trim()) return undefined;
      try {
        return await run(picked.config, task);
      } catch (err) {
        void vscode.window.showErrorMessage(`Arbor: ${messageOf(err)}`);
        return undefined;
      }
    }),
    runtime.onEvents(['stop_overdue', 'turn_end'], (e) => {
      if (!e.agent.engine) return;
      const { agent, change } = e;
      const name = e.agent.engine.name;
      if (change.type === 'stop_overdue') {
        log.warn(`"${agent.label}" has not ended its turn ${Math.round(change.graceMs / 1000)} s after Stop.`);
        void vscode.window
          .showWarningMessage(`${agent.label} (${name}) has not stopped ${Math.round(change.graceMs / 1000)} s after Stop. End its process?`, 'End Process')
          .then((pick) => {
            if (pick && runtime.agents.isLive(agent)) return runtime.end(agent);
          });
      } else if (change.type === 'turn_end' && change.end.code && NEEDS_ATTENTION.has(change.end.code)) {
        void vscode.window.showWarningMessage(`Arbor: ${change.end.message ?? change.end.code}`);
      }
    }),
  );
  return { settings, run, engineForResume, engineForRestore, restartProcess };
}
