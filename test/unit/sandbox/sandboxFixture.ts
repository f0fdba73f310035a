import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS, probeSandbox, type SandboxAvailability, type SandboxSettings } from '../../../src/core/sandbox';
import { findOnPath } from '../../../src/core/sandbox/availability';

/**
 * A run folder and, beside it, a folder outside it with a marker file, under /var/tmp (a
 * sandboxed command gets a /tmp of its own, so a marker there would prove nothing).
 */
export interface SandboxPlace {
  root: string;
  workspace: string;
  outside: string;
  marker: string;
  secrets: string;
  secretFile: string;
}

export function makePlace(): SandboxPlace {
  const root = fs.realpathSync(fs.mkdtempSync('/var/tmp/arbor-sandbox-test-'));
  const workspace = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  const secrets = path.join(root, 'secrets');
  for (const dir of [workspace, outside, secrets]) fs.mkdirSync(dir);
  const marker = path.join(outside, 'marker');
  fs.writeFileSync(marker, 'original\n');
  const secretFile = path.join(secrets, 'id_key');
  fs.writeFileSync(secretFile, 'TOP-SECRET-CONTENT\n');
  return { root, workspace, outside, marker, secrets, secretFile };
}

export function removePlace(place: SandboxPlace | undefined): void {
  if (place) fs.rmSync(place.root, { recursive: true, force: true });
}

let probed: Promise<SandboxAvailability> | undefined;

/**
 * Skips the calling suite, saying why, where bubblewrap or socat is not installed (on macOS,
 * where sandbox-exec is not there). Where they
 * are installed (CI: scripts/setup.cjs installs them for `npm test`) but cannot start a sandbox,
 * the suite fails with the reason instead: a sandbox that is there and does not work is a fault
 * to see, not a test to skip.
 */
export function requireSandbox(): void {
  before(async function () {
    this.timeout(20_000);
    const available = await (probed ??= probeSandbox());
    if (available.ok) return;
    if (process.platform === 'linux' && findOnPath('bwrap') && findOnPath('socat')) throw new Error(`bubblewrap is installed but cannot sandbox here: ${available.missing}`);
    if (process.platform === 'darwin' && fs.existsSync('/usr/bin/sandbox-exec')) throw new Error(`macOS's sandbox-exec is there but cannot sandbox here: ${available.missing}`);
    console.log(`      (skipped: ${available.missing})`);
    this.skip();
  });
}

export function sandboxWith(place: SandboxPlace, settings: Partial<SandboxSettings> = {}): CommandSandbox {
  return new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, ...settings }, denyRead: [place.secrets] });
}

/** Runs `script` with /bin/sh in the sandbox, in the place's workspace, to its end. */
export async function runSandboxed(sandbox: CommandSandbox, place: SandboxPlace, script: string, env: Record<string, string> = {}, folder = place.workspace): Promise<{ code: number | null; output: string; sandboxed: boolean; blocked: readonly string[] }> {
  const plan = await sandbox.plan([folder]);
  const launch = await sandbox.launch(plan, '/bin/sh', ['-c', script], folder, env);
  try {
    const child = spawn(launch.program, launch.args, { cwd: folder, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    return { code, output, sandboxed: launch.sandboxed, blocked: launch.blockedHosts() };
  } finally {
    launch.dispose();
  }
}

/** Host processes whose environment carries ARBOR_TEST_MARK=<mark>. */
export function marked(mark: string): number[] {
  const needle = Buffer.from(`ARBOR_TEST_MARK=${mark}\0`);
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (fs.readFileSync(`/proc/${name}/environ`).includes(needle)) out.push(Number(name));
    } catch {
      // gone, or not readable
    }
  }
  return out;
}
