import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogStore } from '#engine/log-store';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { PARTITIONS, connectProducer, createTopic, produceSteadily, readAll, summarise, until } from './support.ts';

// The consumer runs in its own process (consumer-process.ts) and is killed with SIGKILL three
// times while messages flow; each restart must carry on from the offsets stored with the records.

const TOTAL = 100_000;
const SCRIPT = 'tests/integration/kafka/consumer-process.ts';
const reason = kafkaMissing();

interface Progress {
  offsets: number;
  stored: number;
  replaySkipped: number;
  state: string;
}

/** A consumer process and the last progress line it printed. */
class ConsumerProcess {
  readonly child: ChildProcess;
  last: Progress = { offsets: 0, stored: 0, replaySkipped: 0, state: 'none' };
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(args: string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) this.last = JSON.parse(line) as Progress;
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }
  describe(): string {
    return `${JSON.stringify(this.last)} ${this.stderr.slice(-2000)}`;
  }
}

for (const version of ['4.1.0', '3.9.1']) {
  describe(`a consumer process killed with SIGKILL against a real ${version} broker`, () => {
    skipAllWithout(reason);

    let broker: KafkaBroker | undefined;
    let dir = '';
    let current: ConsumerProcess | undefined;

    beforeAll(async () => {
      if (reason !== undefined) return;
      broker = await startKafkaBroker(version);
      dir = mkdtempSync(join(tmpdir(), 'rampart-kafka-crash-'));
    }, 600_000);

    afterEach(async () => {
      if (current && current.child.exitCode === null && current.child.signalCode === null) {
        current.child.kill('SIGKILL');
        await current.exited;
      }
    });

    afterAll(async () => {
      await broker?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it('stores exactly 100,000 records after three kills mid-stream', { timeout: 240_000 }, async () => {
      const topic = 'crash';
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      const producing = produceSteadily(producer, topic, 0, TOTAL, 4000);
      const args = [dir, broker!.address, topic, 'cfg_crash', String(PARTITIONS)];

      const kills: Progress[] = [];
      for (const threshold of [20_000, 45_000, 70_000]) {
        const run = (current = new ConsumerProcess(args));
        let previous = -1;
        // Killed while it is storing: past the threshold and still moving.
        await until(
          () => {
            const moving = run.last.offsets > previous && previous >= 0;
            previous = run.last.offsets;
            return run.last.offsets >= threshold && moving;
          },
          120_000,
          () => run.describe(),
        );
        run.child.kill('SIGKILL');
        expect(await run.exited).toBeNull();
        kills.push(run.last);
      }
      await producing;
      await producer.disconnect();

      const last = (current = new ConsumerProcess(args));
      await until(
        () => last.last.offsets >= TOTAL,
        120_000,
        () => last.describe(),
      );
      last.child.kill('SIGTERM');
      expect(await last.exited).toBe(0);
      console.log(`kafka ${version} SIGKILL at ${JSON.stringify(kills)}, last run ${JSON.stringify(last.last)}`);

      const store = await LogStore.open(dir);
      try {
        expect(summarise(await readAll(store, 'custom:cfg_crash'))).toEqual({
          records: TOTAL,
          logIds: TOTAL,
          seqs: TOTAL,
        });
      } finally {
        await store.close();
      }
    });
  });
}
