import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadSettings } from '#engine/settings';
import { startEngine, type EngineOptions, type RunningEngine } from '../../engine/main.ts';

export interface TestEngine extends RunningEngine {
  url: string;
  dataDir: string;
  /** Stops the engine and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * A loopback port free to listen on. Ports are drawn below the ephemeral range (32768-60999 on
 * Linux): a port the kernel hands out for listen(0) is one it also hands to outgoing connections,
 * and between the check here and the caller's own listen another process's connection could take
 * it (seen as EADDRINUSE while a benchmark ran beside the tests). Falls back to the kernel's choice.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = LOW_PORTS.from + Math.floor(Math.random() * (LOW_PORTS.to - LOW_PORTS.from));
    if ((await listenable(port)) !== null) return port;
  }
  const port = await listenable(0);
  if (port === null) throw new Error('no free loopback port');
  return port;
}

const LOW_PORTS = { from: 20_000, to: 32_000 };

/** Listens on the port and closes again: the port it got, or null when it was taken. */
function listenable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const got = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(got));
    });
  });
}

/**
 * Starts a real engine in process on a free loopback port with its own temporary data directory.
 * `env` adds RAMPART_* settings (SMTP, edition, licence key...).
 */
export async function startTestEngine(
  env: Record<string, string> = {},
  options: EngineOptions & { dataDir?: string } = {},
): Promise<TestEngine> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'rampart-test-')));
  const port = await freePort();
  const gatewayPort = await freePort();
  const settings = loadSettings({
    RAMPART_DATA: dataDir,
    RAMPART_CONSOLE_HOST: '127.0.0.1',
    RAMPART_CONSOLE_PORT: String(port),
    RAMPART_GATEWAY_HOST: '127.0.0.1',
    RAMPART_GATEWAY_PORT: String(gatewayPort),
    // Each test engine its own gateway log port (nginx's access-log lines), not the default 9082.
    RAMPART_GATEWAY_LOG_PORT: String(await freePort()),
    // ... and its own TLS log intake port, not the default 5514.
    RAMPART_INTAKE_PORT: String(await freePort()),
    // BROKER configurations a test (or the security run's generated input) makes reach loopback only.
    RAMPART_KAFKA_BROKERS_ALLOWED: '127.0.0.0/8,::1',
    // CNAME sites' ports (the reverse proxy) on loopback only.
    RAMPART_PROXY_HOST: '127.0.0.1',
    RAMPART_LOG_LEVEL: 'silent',
    ...env,
  });
  const engine = await startEngine(settings, { logger: pino({ level: 'silent' }), ...options });
  return {
    ...engine,
    url: engine.consoleUrl,
    dataDir,
    dispose: async () => {
      await engine.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
