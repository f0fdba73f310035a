import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/** Another window on `dir`: a test/support script run in its own node process, its output gathered. */
export function childWindow(script: string, dir: string): { child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, script), dir], { cwd: path.join(__dirname, '..', '..') });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, output: () => output, exited };
}
