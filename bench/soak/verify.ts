/**
 * The soak's loss and duplicate check, on the engine's log store opened here after the engine has
 * stopped (no budget, no retention: it only reads). Every record of the TLS configuration's log
 * carries the sender's seq; every record of the Kafka configuration's log carries its
 * `log_id = <topic>-<partition>-<offset>`, and the broker's high watermarks say which offsets exist.
 */
import { LogStore } from '#engine/log-store';

export interface TlsTally {
  /** How many times each seq 0..lastSeq is stored. */
  counts: Uint8Array;
  /** Records whose seq is outside 0..lastSeq or missing. */
  foreign: number;
}

export interface KafkaTally {
  /** Per partition, how many times each offset below its high watermark is stored. */
  counts: Uint8Array[];
  /** Per partition, the seq of the message at each offset (-1 where none is stored). */
  seqs: Int32Array[];
  foreign: number;
}

const bump = (counts: Uint8Array, i: number): void => {
  if (counts[i]! < 255) counts[i]!++;
};

/** Reads both logs, oldest first. */
export async function tallyStore(
  dataDir: string,
  logs: { tls: string; kafka: string },
  lastSeq: number,
  kafka: { topic: string; highWatermarks: number[] },
): Promise<{ tls: TlsTally; kafka: KafkaTally }> {
  const store = await LogStore.open(dataDir);
  try {
    const tls: TlsTally = { counts: new Uint8Array(lastSeq + 1), foreign: 0 };
    for await (const block of store.blocks(logs.tls, { from: 0, to: Number.MAX_SAFE_INTEGER, oldestFirst: true })) {
      for (let row = 0; row < block.lines.length; row++) {
        const seq = block.record(row)?.seq;
        if (typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 && seq <= lastSeq) bump(tls.counts, seq);
        else tls.foreign++;
      }
    }
    const counts = kafka.highWatermarks.map((hw) => new Uint8Array(hw));
    const seqs = kafka.highWatermarks.map((hw) => new Int32Array(hw).fill(-1));
    const tally: KafkaTally = { counts, seqs, foreign: 0 };
    const prefix = `${kafka.topic}-`;
    for await (const block of store.blocks(logs.kafka, { from: 0, to: Number.MAX_SAFE_INTEGER, oldestFirst: true })) {
      for (let row = 0; row < block.lines.length; row++) {
        const record = block.record(row);
        const id = record?.log_id;
        const parts = typeof id === 'string' && id.startsWith(prefix) ? id.slice(prefix.length).split('-') : [];
        const partition = Number(parts[0]);
        const offset = Number(parts[1]);
        const partitionCounts = counts[partition];
        if (parts.length !== 2 || partitionCounts === undefined || !(offset >= 0 && offset < partitionCounts.length)) {
          tally.foreign++;
          continue;
        }
        bump(partitionCounts, offset);
        const seq = record?.seq;
        if (typeof seq === 'number') seqs[partition]![offset] = seq;
      }
    }
    return { tls, kafka: tally };
  } finally {
    await store.close();
  }
}
