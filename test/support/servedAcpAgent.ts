import { spawn, type ChildProcess } from 'node:child_process';
import type { RemoteAgentConfig } from '../../src/core/external';
import { ACP_TEST_AGENT_SCRIPT, ACP_WAIT } from './acpTestAgent';

/**
 * The tests' agent served over the network (test/fixtures/acp-test-agent/serve.mjs): its own
 * process, listening on 127.0.0.1, reached by WebSocket or streamable HTTP. `drop()` destroys
 * every connection it has (as a proxy or a network that goes away does); it goes on listening.
 */
export interface ServedTestAgent {
  readonly port: number;
  /** The entry that reaches it: `ws://127.0.0.1:<port>/` or `http://127.0.0.1:<port>/`. */
  config(transport: 'ws' | 'http', name?: string): RemoteAgentConfig;
  drop(): void;
  stop(): Promise<void>;
}

export async function serveTestAgent(env: Record<string, string> = {}): Promise<ServedTestAgent> {
  const child: ChildProcess = spawn(process.execPath, [ACP_TEST_AGENT_SCRIPT], {
    env: { ...process.env, ...env, ACP_TEST_AGENT_SERVE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the served test agent did not listen within ${ACP_WAIT} ms: ${out}`)), ACP_WAIT);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const listening = /ACP_TEST_AGENT_LISTENING (\d+)/.exec(out);
      if (!listening) return;
      clearTimeout(timer);
      resolve(Number(listening[1]));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the served test agent exited (${code}) before it listened: ${out}`));
    });
  });
  return {
    port,
    config: (transport, name = 'Served Agent') => ({ name, url: `${transport}://127.0.0.1:${port}/` }),
    drop: () => child.kill('SIGUSR2'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
