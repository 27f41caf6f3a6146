import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ServerProcess } from './server-process.ts';

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
  readonly #server = new ServerProcess('haproxy');

  constructor(readonly dir: string) {}

  get output(): string {
    return this.#server.output;
  }

  async start(config: string, before: readonly string[], port: number): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, 'haproxy.cfg');
    await writeFile(file, config);
    const args = [...before.flatMap((f) => ['-f', f]), '-f', file];
    const checked = spawnSync(HAPROXY, ['-c', ...args], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`haproxy -c failed:\n${checked.stdout}${checked.stderr}`);
    await this.#server.start(HAPROXY, ['-db', ...args], () => listening(port));
  }

  stop(): Promise<void> {
    return this.#server.stop();
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
