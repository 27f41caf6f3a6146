import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A server program a test runs in the foreground (Caddy, HAProxy): its output kept for failure
 * messages, `start` returning once `ready` says it answers, `stop` ending it by its PID (SIGTERM,
 * then SIGKILL after 5 s).
 */
export class ServerProcess {
  #process: ChildProcess | undefined;
  #output = '';

  constructor(readonly name: string) {}

  get output(): string {
    return this.#output;
  }

  async start(
    command: string,
    args: readonly string[],
    ready: () => Promise<boolean>,
    env?: NodeJS.ProcessEnv,
  ): Promise<void> {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    child.stdout?.on('data', (c: Buffer) => (this.#output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.#output += c.toString()));
    this.#process = child;
    const deadline = Date.now() + 10_000;
    while (!(await ready())) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited: ${this.#output}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not answer: ${this.#output}`);
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
