/**
 * The soak's TLS log sender (bench/soak.ts forks it): one connection at a time to the intake with a
 * TCP configuration's client certificate, json lines `{"seq":N,...}` at a fixed rate, every seq
 * once. Lines are made at the rate whether or not the engine is up (a sender's queue, as rsyslog
 * keeps one) and written when a connection takes them.
 *
 * TLS syslog has no acknowledgements, so this process never decides what was stored: when a
 * connection drops it tells the parent which seqs it had written on it (`down`), the parent asks the
 * engine's store once the engine is back and sends the missing ones back (`resend`), which go out
 * again like any other line. Reconnects every 200 ms.
 *
 * argv: port certFile keyFile rate (lines/s)
 */
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import type { SenderDown, SenderMessage, SenderProgress, SenderStopped, ParentMessage } from './protocol.ts';

const [port, certFile, keyFile, rateText] = process.argv.slice(2);
const cert = readFileSync(certFile!);
const key = readFileSync(keyFile!);
const rate = Number(rateText);
const TICK_MS = 20;
/** Bytes handed to one write at most, so a long queue goes out in pieces the socket can drain. */
const WRITE_LINES = 2000;

const send = (message: SenderMessage): void => {
  process.send?.(message);
};

/** A line of seq: its ip and user vary with it so the events over this log have keys to count. */
const lineOf = (seq: number): string =>
  `{"seq":${seq},"ip":"10.${(seq >> 16) & 255}.${(seq >> 8) & 3}.${seq % 97}","user":"u${seq % 500}","msg":"soak line ${seq}"}\n`;

let nextSeq = 0;
const queue: number[] = [];
let queueHead = 0;
let socket: TLSSocket | undefined;
let connected = false;
let writable = true;
let stopping = false;
let connectionId = 0;
/** When the live connection came up. */
let since = 0;
/** What the live connection has written: fresh seqs are one ascending run, resent ones a list. */
let fresh: [number, number] | null = null;
let resent: number[] = [];
let resentAt: [number, number] | null = null;
/** Seqs queued for a resend: they must not start or extend the fresh run. */
const resentSet = new Set<number>();
let written = 0;
const started = performance.now();

function produce(): void {
  if (stopping) return;
  const due = Math.floor((rate * (performance.now() - started)) / 1000);
  while (nextSeq < due) queue.push(nextSeq++);
}

function pump(): void {
  while (connected && writable && queueHead < queue.length) {
    const end = Math.min(queue.length, queueHead + WRITE_LINES);
    let text = '';
    for (let i = queueHead; i < end; i++) {
      const seq = queue[i]!;
      text += lineOf(seq);
      // Fresh seqs go out in order, so on one connection they are one run.
      if (resentSet.delete(seq)) {
        resent.push(seq);
        const now = Date.now();
        if (resentAt === null) resentAt = [now, now];
        else resentAt[1] = now;
      } else if (fresh === null) fresh = [seq, seq];
      else fresh[1] = seq;
    }
    written += end - queueHead;
    queueHead = end;
    if (queueHead > 100_000) {
      queue.splice(0, queueHead);
      queueHead = 0;
    }
    writable = socket!.write(text);
  }
  if (stopping && connected && writable && queueHead >= queue.length) finish();
}

function open(): void {
  const id = ++connectionId;
  const s = connect({ host: '127.0.0.1', port: Number(port), cert, key, rejectUnauthorized: false });
  socket = s;
  s.once('secureConnect', () => {
    since = Date.now();
    connected = true;
    writable = true;
    send({ type: 'up', at: Date.now() });
    pump();
  });
  s.on('drain', () => {
    writable = true;
    pump();
  });
  s.on('error', () => undefined);
  s.once('close', () => {
    if (id !== connectionId) return;
    const wasConnected = connected;
    connected = false;
    socket = undefined;
    if (wasConnected || fresh !== null || resent.length > 0) {
      const down: SenderDown = {
        type: 'down',
        since: wasConnected ? since : Date.now(),
        at: Date.now(),
        fresh,
        resent,
        resentAt,
      };
      send(down);
    }
    fresh = null;
    resent = [];
    resentAt = null;
    if (!finished) setTimeout(open, 200);
  });
}

let finished = false;
function finish(): void {
  if (finished) return;
  finished = true;
  const s = socket!;
  s.end(() => {
    // The parent checks this connection's lines like any other's once the engine has read them.
    const stopped: SenderStopped = {
      type: 'stopped',
      since,
      at: Date.now(),
      lastSeq: nextSeq - 1,
      fresh,
      resent,
      written,
    };
    send(stopped);
    setTimeout(() => process.exit(0), 100);
  });
}

process.on('message', (raw) => {
  const message = raw as ParentMessage;
  if (message.type === 'resend') {
    for (const seq of message.seqs) {
      resentSet.add(seq);
      queue.push(seq);
    }
    pump();
  } else if (message.type === 'stop') {
    stopping = true;
    pump();
  }
});
process.on('disconnect', () => process.exit(0));

setInterval(() => {
  produce();
  pump();
}, TICK_MS);
setInterval(() => {
  const progress: SenderProgress = {
    type: 'progress',
    at: Date.now(),
    lastSeq: nextSeq - 1,
    queued: queue.length - queueHead,
    written,
    connected,
  };
  send(progress);
}, 1000);
open();
