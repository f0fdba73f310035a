import * as path from 'node:path';
import type { ExternalAgentConfig } from '../../src/core/external';

/** The small Agent Client Protocol agent of the tests (test/fixtures/acp-test-agent), as an external agent entry. */
export const ACP_TEST_AGENT_SCRIPT = path.resolve(__dirname, '../fixtures/acp-test-agent/agent.mjs');

export function testAgentConfig(overrides: Partial<ExternalAgentConfig> = {}): ExternalAgentConfig {
  return { name: 'Test Agent', command: process.execPath, args: [ACP_TEST_AGENT_SCRIPT], env: {}, secretEnv: [], ...overrides };
}

/**
 * The test agent's environment for sessions it keeps in `folder`; `loadSession: false` keeps
 * them but offers no session/load (an agent that cannot load its sessions, or no longer can).
 */
export function testAgentSessionsEnv(folder: string, options: { loadSession?: boolean } = {}): Record<string, string> {
  return options.loadSession === false ? { ACP_TEST_AGENT_SESSIONS: folder, ACP_TEST_AGENT_LOAD_SESSION: 'off' } : { ACP_TEST_AGENT_SESSIONS: folder };
}
