import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The sshd scripts/setup.cjs installs (openssh-server), or undefined where it is not. */
export const SSHD = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((p) => fs.existsSync(p));

/**
 * An sshd of the test's own on 127.0.0.1 (a free port, its own host key, one client key that
 * may log in as the current user), for external agents reached through `ssh`. `sshArgs` are the
 * client arguments that reach it without asking anything; `stop` ends it.
 */
export interface LoopbackSshd {
  port: number;
  sshArgs: string[];
  stop(): void;
}

export async function startLoopbackSshd(): Promise<LoopbackSshd> {
  if (!SSHD) throw new Error('no sshd: scripts/setup.cjs installs openssh-server');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-sshd-'));
  const key = (name: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, name)]);
  key('host');
  key('client');
  fs.copyFileSync(path.join(dir, 'client.pub'), path.join(dir, 'authorized_keys'));
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${path.join(dir, 'host')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'StrictModes no',
    'UsePAM no',
    'LogLevel ERROR',
  ];
  fs.writeFileSync(path.join(dir, 'sshd_config'), `${config.join('\n')}\n`);
  // sshd's privilege separation needs its folder, which a system start would make.
  fs.mkdirSync('/run/sshd', { recursive: true });
  const sshd: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  sshd.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await listening(port, sshd, () => stderr);
  const sshArgs = ['-T', '-p', String(port), '-i', path.join(dir, 'client'), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${os.userInfo().username}@127.0.0.1`];
  return {
    port,
    sshArgs,
    stop: () => {
      sshd.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the port takes a connection; rejects when sshd exits first or 20 s pass. */
async function listening(port: number, sshd: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (sshd.exitCode !== null) throw new Error(`sshd exited (${sshd.exitCode}): ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen on ${port}: ${stderr()}`);
}
