/**
 * A real Apache Kafka broker (KRaft, loopback only) for tests, from the scripts in ../shared/kafka
 * (`RAMPART_KAFKA_SCRIPTS` overrides the folder): fetch-kafka.sh resolves the broker's jars once
 * into /tmp/kafka-jars/<version>, start-kafka.sh starts it on PORT (PLAINTEXT), PORT+1
 * (SASL_PLAINTEXT: PLAIN and SCRAM-SHA-256, users admin/admin-secret and alice/alice-secret) and
 * PORT+2 (controller), stop-kafka.sh stops that PID only. Every broker started here is stopped by
 * `stop()`, and, should a test file forget or die, by a process exit hook (by its PID).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPTS = ['fetch-kafka.sh', 'start-kafka.sh', 'stop-kafka.sh'];

/** The folder holding the broker scripts. */
export const kafkaScriptsDir = (): string => process.env.RAMPART_KAFKA_SCRIPTS ?? join(REPO, '..', 'shared', 'kafka');

const onPath = (command: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why a broker cannot be started here, or undefined when it can. */
export function kafkaMissing(): string | undefined {
  const dir = kafkaScriptsDir();
  const absent = SCRIPTS.filter((script) => !existsSync(join(dir, script)));
  if (absent.length > 0) {
    return `the Kafka broker scripts are missing (${absent.join(', ')} in ${dir}; set RAMPART_KAFKA_SCRIPTS to their folder)`;
  }
  if (!onPath('java'))
    return 'java is not installed (a JDK 17 or later is needed: apt-get install openjdk-17-jre-headless)';
  if (!onPath('mvn')) return 'mvn is not installed (needed to fetch the Kafka jars: apt-get install maven)';
  return undefined;
}

const run = (script: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): Promise<string> =>
  new Promise((done, fail) => {
    execFile(
      join(kafkaScriptsDir(), script),
      args,
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`${script} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else done(stdout);
      },
    );
  });

const portFree = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });

/** A base port with `count` consecutive ports free on 127.0.0.1 (the script takes base to base+2). */
async function freePorts(count = 3): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let free = true;
    for (let i = 0; i < count && free; i++) free = await portFree(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1`);
}

/**
 * A TLS listener at base+3 beside the script's three: server.properties lines (appended last, so
 * they replace the script's listener lines) for a PEM key store holding the broker's key and
 * certificate chain.
 */
export interface BrokerTls {
  /** The PEM file: the broker's PKCS#8 private key, then its certificate. */
  keyStoreFile: string;
}

const tlsProps = (base: number, tls: BrokerTls): string =>
  [
    `listeners=PLAINTEXT://127.0.0.1:${base},SASL_PLAINTEXT://127.0.0.1:${base + 1},CONTROLLER://127.0.0.1:${base + 2},SSL://127.0.0.1:${base + 3}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${base},SASL_PLAINTEXT://127.0.0.1:${base + 1},SSL://127.0.0.1:${base + 3}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL',
    'listener.name.ssl.ssl.keystore.type=PEM',
    `listener.name.ssl.ssl.keystore.location=${tls.keyStoreFile}`,
  ].join('\n');

const running = new Set<number>();
process.once('exit', () => {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

export interface KafkaBroker {
  readonly version: string;
  readonly port: number;
  readonly saslPort: number;
  readonly dir: string;
  /** The broker JVM's PID while it runs. */
  readonly pid: number | undefined;
  /** `127.0.0.1:<port>` (PLAINTEXT). */
  readonly address: string;
  /** `127.0.0.1:<saslPort>` (SASL_PLAINTEXT). */
  readonly saslAddress: string;
  /** `127.0.0.1:<port + 3>` (SSL), when started with `tls`. */
  readonly tlsAddress: string;
  /** Stops the broker; `keepData` leaves its data directory for `start()` to reuse. */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** Starts it again on the same ports with the data it had. */
  start(): Promise<void>;
}

const parseStarted = (stdout: string): { pid: number; port: number; saslPort: number; dir: string } => {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const match = /^PID=(\d+) PORT=(\d+) SASL_PORT=(\d+) DIR=(\S+)$/.exec(line);
  if (!match) throw new Error(`start-kafka.sh printed no PID line: ${JSON.stringify(line)}`);
  return { pid: Number(match[1]), port: Number(match[2]), saslPort: Number(match[3]), dir: match[4]! };
};

/** Fetches (once) and starts a broker of `version` on free loopback ports (with `tls`, a TLS listener too). */
export async function startKafkaBroker(version: string, options: { tls?: BrokerTls } = {}): Promise<KafkaBroker> {
  await run('fetch-kafka.sh', [version], {}, 600_000);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const base = await freePorts(options.tls ? 4 : 3);
    const dir = join('/tmp', `rampart-kafka-${version}-${base}`);
    const env = options.tls ? { KAFKA_EXTRA_PROPS: tlsProps(base, options.tls) } : {};
    try {
      const started = parseStarted(await run('start-kafka.sh', [version, String(base), dir], env));
      return brokerHandle(version, started);
    } catch (error) {
      lastError = error;
      // A failed start may leave the JVM running (it prints its PID file first).
      await run('stop-kafka.sh', [dir, '--rm']).catch(() => undefined);
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

function brokerHandle(
  version: string,
  started: { pid: number; port: number; saslPort: number; dir: string },
): KafkaBroker {
  let pid: number | undefined = started.pid;
  running.add(started.pid);
  const { port, saslPort, dir } = started;
  return {
    version,
    port,
    saslPort,
    dir,
    address: `127.0.0.1:${port}`,
    saslAddress: `127.0.0.1:${saslPort}`,
    tlsAddress: `127.0.0.1:${port + 3}`,
    get pid() {
      return pid;
    },
    async stop(options = {}) {
      if (pid === undefined) {
        if (!options.keepData) rmSync(dir, { recursive: true, force: true });
        return;
      }
      const stopping = pid;
      await run('stop-kafka.sh', options.keepData ? [dir] : [dir, '--rm']);
      running.delete(stopping);
      pid = undefined;
    },
    async start() {
      if (pid !== undefined) return;
      const again = parseStarted(await run('start-kafka.sh', [version, String(port), dir], { KAFKA_KEEP_DATA: '1' }));
      pid = again.pid;
      running.add(again.pid);
    },
  };
}
