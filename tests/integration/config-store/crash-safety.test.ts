import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore, CONFIG_FILE_NAME, SCHEMA_VERSION, type ConfigDocument } from '#engine/config-store';
import { systemClock } from '#engine/shared';

const ROUNDS = 12;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-crash-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Starts the writer, lets it write for `ms` after it has opened the store, then SIGKILLs it. */
function writeThenKill(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/config-writer.ts', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), ms));
    child.once('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited on its own (${code}): ${stderr}`)),
    );
  });
}

function assertWhole(doc: ConfigDocument): void {
  expect(doc.schemaVersion).toBe(SCHEMA_VERSION);
  expect(doc.audit.length % 200).toBe(0);
  doc.audit.forEach((entry, i) => {
    if (entry.action !== `write-${i}`) throw new Error(`entry ${i} is ${entry.action}`);
  });
}

describe('configuration writes under SIGKILL', () => {
  it(`always leave a whole generation, over ${ROUNDS} kills at varied moments`, async () => {
    let previous = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await writeThenKill(30 + ((round * 37) % 170));
      const main = JSON.parse(await readFile(join(dir, CONFIG_FILE_NAME), 'utf8')) as ConfigDocument;
      assertWhole(main);
      const backup = JSON.parse(await readFile(join(dir, `${CONFIG_FILE_NAME}.bak`), 'utf8')) as ConfigDocument;
      assertWhole(backup);
      const store = await ConfigStore.open(dir, systemClock);
      assertWhole(store.data);
      expect(store.data.audit.length).toBeGreaterThanOrEqual(previous);
      previous = store.data.audit.length;
    }
    expect(previous).toBeGreaterThan(0);
  });
});
