/**
 * A BROKER configuration's Kafka thread (docs/DESIGN.md 2b): kafkajs and the parser run here, off
 * the engine's thread; parsed batches go to the engine's thread, which stores them. Started by
 * KafkaSource with a ReaderStart as its workerData; the messages are kafka-link.ts's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Calls, errorText, type HostCall, type ReaderStart, type ToHost, type ToReader } from './kafka-link.ts';
import { KafkaReader } from './kafka-reader.ts';

const port = parentPort!;
const start = workerData as ReaderStart;
const post = (message: ToHost): void => port.postMessage(message);

const calls = new Calls<HostCall>((id, call) => post({ t: 'call', id, call }));

const reader = new KafkaReader(
  start.connection,
  start.parse,
  start.settings,
  {
    storedNext: (partition) => calls.call<number | undefined>({ method: 'storedNext', partition }),
    store: (batch) => calls.call<number>({ method: 'store', batch }),
    backlog: () => calls.call<number>({ method: 'backlog' }),
    counted: (counts) => post({ t: 'counts', counts }),
    log: (level, fields, message) => post({ t: 'log', level, fields, message }),
    now: () => Date.now() + start.clockSkewMs,
  },
  start.counts,
  start.encode,
);

port.on('message', (message: ToReader) => {
  switch (message.t) {
    case 'reply':
      calls.answered(message);
      return;
    case 'parser':
      reader.setParser(message.parse, message.encode);
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
