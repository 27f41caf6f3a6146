/** Messages between bench/soak.ts and its TLS sender (bench/soak/tls-sender.ts), over the fork channel. */

/** Every second: the newest seq made, the lines waiting, whether a connection is up. */
export interface SenderProgress {
  type: 'progress';
  at: number;
  lastSeq: number;
  queued: number;
  written: number;
  connected: boolean;
}

/** A connection closed: what it had written (fresh seqs as one run, resent ones as a list). */
export interface SenderDown {
  type: 'down';
  /** When the connection came up and when it closed: the engine read its lines in between. */
  since: number;
  at: number;
  fresh: [number, number] | null;
  resent: number[];
  /** When the first and the last resent line were written on it. */
  resentAt: [number, number] | null;
}

/** After `stop`: everything made was written and the last connection closed cleanly. */
export interface SenderStopped {
  type: 'stopped';
  since: number;
  at: number;
  lastSeq: number;
  fresh: [number, number] | null;
  resent: number[];
  written: number;
}

export type SenderMessage = SenderProgress | SenderDown | SenderStopped | { type: 'up'; at: number };

export type ParentMessage = { type: 'resend'; seqs: number[] } | { type: 'stop' };
