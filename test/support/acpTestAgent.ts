import * as path from 'node:path';
import type { Agent } from '../../src/core/agents/agent';
import type { LocalAgentConfig } from '../../src/core/external';
import type { SessionEvent } from '../../src/core/sessions';

/** The small Agent Client Protocol agent of the tests (test/fixtures/acp-test-agent), as an external agent entry. */
export const ACP_TEST_AGENT_SCRIPT = path.resolve(__dirname, '../fixtures/acp-test-agent/agent.mjs');

export function testAgentConfig(overrides: Partial<LocalAgentConfig> = {}): LocalAgentConfig {
  return { name: 'Test Agent', command: process.execPath, args: [ACP_TEST_AGENT_SCRIPT], env: {}, secretEnv: [], ...overrides };
}

/** The test agent started by a launcher that passes it its own standard streams (as npm wrappers do). */
export const ACP_TEST_LAUNCHER_SCRIPT = path.resolve(__dirname, '../fixtures/acp-test-agent/launcher.mjs');

export function launchedTestAgentConfig(overrides: Partial<LocalAgentConfig> = {}): LocalAgentConfig {
  return testAgentConfig({ args: [ACP_TEST_LAUNCHER_SCRIPT], ...overrides });
}

/** Generous: a child process on a loaded machine; the tests wait for states, never for a time. */
export const ACP_WAIT = 20_000;

/** The turn ends an agent's log has recorded, oldest first. */
export const turnEnds = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');

/**
 * The test agent's environment for sessions it keeps in `folder`; `loadSession: false` keeps
 * them but offers no session/load (an agent that cannot load its sessions, or no longer can).
 */
export function testAgentSessionsEnv(folder: string, options: { loadSession?: boolean } = {}): Record<string, string> {
  return options.loadSession === false ? { ACP_TEST_AGENT_SESSIONS: folder, ACP_TEST_AGENT_LOAD_SESSION: 'off' } : { ACP_TEST_AGENT_SESSIONS: folder };
}
