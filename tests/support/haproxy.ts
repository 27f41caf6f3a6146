import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const HAPROXY = '/usr/sbin/haproxy';

/** Why HAProxy tests cannot run here, or undefined when they can. */
export const haproxyMissing = (): string | undefined =>
  existsSync(HAPROXY)
    ? undefined
    : `haproxy is not installed (${HAPROXY}): npm run setup:system, or apt-get install haproxy`;

/**
 * A real HAProxy (Debian's package) run in the foreground (-db) from files loaded before ours (a
 * bundle's rampart.cfg, which must come first: it loads the Lua action ours uses) and a configuration
 * of ours, for integration tests.
 */
export class TestHaproxy {
  #process: ChildProcess | undefined;
  #output = '';

  constructor(readonly dir: string) {}

  get output(): string {
    return this.#output;
  }

  async start(config: string, before: readonly string[], port: number): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, 'haproxy.cfg');
    await writeFile(file, config);
    const args = [...before.flatMap((f) => ['-f', f]), '-f', file];
    const checked = spawnSync(HAPROXY, ['-c', ...args], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`haproxy -c failed:\n${checked.stdout}${checked.stderr}`);
    const child = spawn(HAPROXY, ['-db', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (this.#output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.#output += c.toString()));
    this.#process = child;
    const deadline = Date.now() + 10_000;
    while (!(await listening(port))) {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${this.#output}`);
      if (Date.now() > deadline) throw new Error(`haproxy did not listen on ${port}: ${this.#output}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
