/**
 * `npm run backup -- create --out FILE [--data DIR] [--logs]`: writes an archive of the data
 * directory (the configured one by default). With --logs the engine must be stopped (the log store
 * is opened here); without, it may run.
 * `npm run backup -- restore --in FILE --data DIR [--replace]`: restores into a data directory no
 * engine runs on (absent or empty; --replace keeps the current one beside it).
 * `npm run backup -- inspect --in FILE`: prints the archive's header.
 * The passphrase is read from the first line of standard input (never from an argument, which
 * other users of the machine could see).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSettings } from '#engine/settings';
import { LogStore } from '#engine/log-store';
import { isRampartError, systemClock } from '#engine/shared';
import { createBackup, restoreBackup } from './backup.ts';
import { readHeader } from './archive.ts';

const USAGE = `usage:
  backup create --out FILE [--data DIR] [--logs]     (passphrase on standard input)
  backup restore --in FILE --data DIR [--replace]     (passphrase on standard input)
  backup inspect --in FILE`;

/** The version of the Rampart this command belongs to (its package.json). */
function engineVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'rampart' && pkg.version) return pkg.version;
  }
  return '0.0.0';
}

async function passphrase(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Passphrase: ');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: 'string' },
      in: { type: 'string' },
      data: { type: 'string' },
      logs: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const dataDir = (): string => (values.data ? resolve(values.data) : loadSettings(process.env, []).dataDir);
  if (command === 'inspect' && values.in) {
    console.log(JSON.stringify((await readHeader(values.in)).header, null, 2));
    return 0;
  }
  if (command === 'create' && values.out) {
    const dir = dataDir();
    const secret = await passphrase();
    const store = values.logs ? await LogStore.open(dir, () => undefined, {}) : undefined;
    try {
      const summary = await createBackup({
        dataDir: dir,
        file: resolve(values.out),
        passphrase: secret,
        ...(store ? { logs: store.entries() } : {}),
        engineVersion: engineVersion(),
        clock: systemClock,
      });
      console.log(
        `wrote ${summary.file}: ${summary.files} files, ${summary.logEntries} log entries, ${summary.bytes} bytes`,
      );
    } finally {
      await store?.close();
    }
    return 0;
  }
  if (command === 'restore' && values.in && values.data) {
    const summary = await restoreBackup({
      file: resolve(values.in),
      passphrase: await passphrase(),
      dataDir: resolve(values.data),
      replace: values.replace,
      clock: systemClock,
    });
    console.log(
      `restored ${summary.files} files and ${summary.logEntries} log entries (Rampart ${summary.header.engineVersion}, schema ${summary.header.schemaVersion}) into ${resolve(values.data)}` +
        (summary.previous ? `; the previous data directory is ${summary.previous}` : ''),
    );
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `backup: ${isRampartError(error) ? error.message : error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  },
);
