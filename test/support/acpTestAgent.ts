import * as path from 'node:path';
import type { ExternalAgentConfig } from '../../src/core/external';

/** The small Agent Client Protocol agent of the tests (test/fixtures/acp-test-agent), as an external agent entry. */
export const ACP_TEST_AGENT_SCRIPT = path.resolve(__dirname, '../fixtures/acp-test-agent/agent.mjs');

export function testAgentConfig(overrides: Partial<ExternalAgentConfig> = {}): ExternalAgentConfig {
  return { name: 'Test Agent', command: process.execPath, args: [ACP_TEST_AGENT_SCRIPT], env: {}, secretEnv: [], ...overrides };
}
