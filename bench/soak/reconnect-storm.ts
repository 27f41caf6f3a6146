/**
 * A burst of TLS reconnects for bench/soak.ts, in its own process: `count` connections to the
 * intake with a configuration's client certificate, `concurrency` at a time, each one a full
 * handshake and a clean close with nothing sent. A connection that fails (the engine restarting) is
 * made again, up to three times `count` in all, so the engine sees `count` handshakes. Prints
 * `{"ok":N,"failed":N,"seconds":S}`.
 *
 * argv: port certFile keyFile count concurrency
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';

const [port, certFile, keyFile, countText, concurrencyText] = process.argv.slice(2);
const cert = readFileSync(certFile!);
const key = readFileSync(keyFile!);
const count = Number(countText);
const concurrency = Number(concurrencyText);

let started = 0;
let ok = 0;
let failed = 0;
const t0 = performance.now();

function one(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), cert, key, rejectUnauthorized: false });
    let done = false;
    const end = (success: boolean): void => {
      if (done) return;
      done = true;
      if (success) ok++;
      else failed++;
      resolve(success);
    };
    socket.setTimeout(30_000, () => {
      socket.destroy();
      end(false);
    });
    socket.once('secureConnect', () => socket.end(() => end(true)));
    socket.once('error', () => end(false));
    socket.once('close', () => end(false));
  });
}

async function worker(): Promise<void> {
  while (ok + (started - ok - failed) < count && started < count * 3) {
    started++;
    // A refused connection fails at once: a pause keeps a restart from using up the tries.
    if (!(await one())) await new Promise((r) => setTimeout(r, 100));
  }
}

await Promise.all(Array.from({ length: concurrency }, () => worker()));
process.stdout.write(`${JSON.stringify({ ok, failed, seconds: (performance.now() - t0) / 1000 })}\n`);
