import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pluginBundle } from '#engine/gateways';
import type { SiteRecord } from '#engine/config-store';
import { setTimeout as sleep } from 'node:timers/promises';

export const NGINX = '/usr/sbin/nginx';

/**
 * A real nginx (Debian's package) run in the foreground from a private prefix, for integration
 * tests and benchmarks. `http` is the body of the http {} block.
 */
export class TestNginx {
  #process: ChildProcess | undefined;
  #stderr = '';

  constructor(readonly prefix: string) {}

  /** `main` goes before the events block (load_module lines). */
  async start(http: string, options: { workers?: number; main?: string } = {}): Promise<void> {
    for (const dir of ['logs', 'tmp']) await mkdir(join(this.prefix, dir), { recursive: true });
    const conf = `${options.main ?? ''}
daemon off;
master_process on;
worker_processes ${options.workers ?? 1};
pid ${this.prefix}/nginx.pid;
error_log ${this.prefix}/logs/error.log warn;
${process.getuid?.() === 0 ? 'user root root;' : ''}
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path ${this.prefix}/tmp/body;
    proxy_temp_path ${this.prefix}/tmp/proxy;
    fastcgi_temp_path ${this.prefix}/tmp/fastcgi;
    uwsgi_temp_path ${this.prefix}/tmp/uwsgi;
    scgi_temp_path ${this.prefix}/tmp/scgi;
${http}
}
`;
    const file = join(this.prefix, 'nginx.conf');
    await writeFile(file, conf);
    try {
      execFileSync(NGINX, ['-t', '-p', this.prefix, '-c', file, '-e', join(this.prefix, 'logs/error.log')], {
        stdio: 'pipe',
      });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`nginx -t failed:\n${stderr}\n${conf}`, { cause: error });
    }
    const child = spawn(NGINX, ['-p', this.prefix, '-c', file, '-e', join(this.prefix, 'logs/error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (c: Buffer) => (this.#stderr += c.toString()));
    this.#process = child;
    await sleep(300);
    if (child.exitCode !== null) throw new Error(`nginx exited: ${this.#stderr}`);
  }

  /** The master's pid: benchmarks read worker CPU time from /proc. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  async errorLog(): Promise<string> {
    return readFile(join(this.prefix, 'logs/error.log'), 'utf8').catch(() => '');
  }

  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGQUIT');
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/**
 * A real nginx protecting one site with the plugin bundle as a person installs it (upstream conf in
 * http {}, site conf in server {}, protect conf in the location), proxying to `upstreamPort`.
 * Answers the nginx (stop it after the test) and the port it listens on.
 */
export async function startProtectedNginx(input: {
  dir: string;
  site: SiteRecord;
  accessKey: string;
  gatewayUrl: string;
  logPort: number;
  upstreamPort: number;
  port: number;
}): Promise<TestNginx> {
  const archive = pluginBundle({
    site: input.site,
    accessKey: input.accessKey,
    engineAddress: `127.0.0.1:${new URL(input.gatewayUrl).port}`,
    logPort: input.logPort,
    version: '0.1.0',
    now: 0,
  }).content;
  await mkdir(join(input.dir, 'bundle'), { recursive: true });
  await writeFile(join(input.dir, 'bundle.tar.gz'), archive);
  execFileSync('tar', ['xzf', join(input.dir, 'bundle.tar.gz'), '-C', join(input.dir, 'bundle')]);
  const folder = join(input.dir, 'bundle', `rampart-nginx-${input.site.id}`);
  const nginx = new TestNginx(join(input.dir, 'nginx'));
  await nginx.start(`
    include ${folder}/rampart-upstream.conf;
    server {
        listen 127.0.0.1:${input.port};
        server_name localhost;
        include ${folder}/rampart-site.conf;
        location / {
            include ${folder}/rampart-protect.conf;
            proxy_pass http://127.0.0.1:${input.upstreamPort};
        }
    }`);
  return nginx;
}
