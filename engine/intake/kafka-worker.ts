/**
 * A BROKER configuration's Kafka thread (docs/DESIGN.md 2b): kafkajs and the parser run here, off
 * the engine's thread; parsed batches go to the engine's thread, which stores them. Started by
 * KafkaSource with a ReaderStart as its workerData; the messages are kafka-link.ts's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorText, type HostCall, type ReaderStart, type ToHost, type ToReader } from './kafka-link.ts';
import { KafkaReader } from './kafka-reader.ts';

const port = parentPort!;
const start = workerData as ReaderStart;
const post = (message: ToHost): void => port.postMessage(message);

let nextCall = 0;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const call = <T>(request: HostCall): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const id = nextCall++;
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post({ t: 'call', id, call: request });
  });

const reader = new KafkaReader(
  start.connection,
  start.parse,
  start.settings,
  {
    storedNext: (partition) => call<number | undefined>({ method: 'storedNext', partition }),
    store: (batch) => call<number>({ method: 'store', batch }),
    backlog: () => call<number>({ method: 'backlog' }),
    counted: (counts) => post({ t: 'counts', counts }),
    log: (level, fields, message) => post({ t: 'log', level, fields, message }),
    now: () => Date.now() + start.clockSkewMs,
  },
  start.counts,
);

port.on('message', (message: ToReader) => {
  switch (message.t) {
    case 'reply': {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error === undefined) waiting?.resolve(message.value);
      else waiting?.reject(new Error(message.error));
      return;
    }
    case 'parser':
      reader.setParser(message.parse);
      return;
    case 'call': {
      const { id, call: request } = message;
      const done = request.method === 'stop' ? reader.stop() : reader.refreshLag();
      done.then(
        () => post({ t: 'reply', id }),
        (error: unknown) => post({ t: 'reply', id, error: errorText(error) }),
      );
      return;
    }
  }
});

reader.start();
