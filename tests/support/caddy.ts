import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { ServerProcess } from './server-process.ts';

export const CADDY = '/usr/bin/caddy';

/** Why Caddy tests cannot run here, or undefined when they can. */
export const caddyMissing = (): string | undefined =>
  existsSync(CADDY) ? undefined : `caddy is not installed (${CADDY}): npm run setup:system, or apt-get install caddy`;

/**
 * A real Caddy (Debian's package) run in the foreground from a Caddyfile, with its admin endpoint
 * off, automatic HTTPS off and its storage in `dir`, for integration tests. `sites` is the part of the
 * Caddyfile after the global options.
 */
export class TestCaddy {
  readonly #server = new ServerProcess('caddy');

  constructor(readonly dir: string) {}

  get output(): string {
    return this.#server.output;
  }

  /** `caddy validate` of a Caddyfile: its exit status and output. */
  validate(file: string): { status: number | null; output: string } {
    const result = spawnSync(CADDY, ['validate', '--config', file, '--adapter', 'caddyfile'], {
      encoding: 'utf8',
      env: this.#env(),
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  async start(sites: string, port: number): Promise<void> {
    await mkdir(join(this.dir, 'data'), { recursive: true });
    const file = join(this.dir, 'Caddyfile');
    await writeFile(file, `{\n\tadmin off\n\tauto_https off\n}\n${sites}\n`);
    const checked = this.validate(file);
    if (checked.status !== 0) throw new Error(`caddy validate failed:\n${checked.output}`);
    await this.#server.start(
      CADDY,
      ['run', '--config', file, '--adapter', 'caddyfile'],
      () => answers(port),
      this.#env(),
    );
  }

  stop(): Promise<void> {
    return this.#server.stop();
  }

  #env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.dir,
      XDG_DATA_HOME: join(this.dir, 'data'),
      XDG_CONFIG_HOME: join(this.dir, 'config'),
    };
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/_rampart/probe.js', agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
