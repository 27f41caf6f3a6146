// A TLS log sender for bench/ingest.bench.ts, run as its own process so it does not share the
// engine's core: connects with a configuration's client certificate and writes its lines (LF
// framing) as fast as the connection takes them, for a number of seconds, then prints how many it sent.
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';

const [port, certFile, keyFile, linesFile, seconds] = process.argv.slice(2);
const lines = readFileSync(linesFile, 'utf8').split('\n').filter(Boolean);
const chunks = [];
for (let i = 0; i < lines.length; i += 200) chunks.push(`${lines.slice(i, i + 200).join('\n')}\n`);
const socket = connect({
  host: '127.0.0.1',
  port: Number(port),
  cert: readFileSync(certFile),
  key: readFileSync(keyFile),
  rejectUnauthorized: false,
});
let sent = 0;
const end = Date.now() + Number(seconds) * 1000;
socket.once('secureConnect', () => {
  let next = 0;
  const pump = () => {
    while (Date.now() < end) {
      const chunk = chunks[next];
      next = (next + 1) % chunks.length;
      sent += 200;
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
    socket.end(() => {
      process.stdout.write(`${sent}\n`);
    });
  };
  pump();
});
socket.on('error', (error) => {
  process.stderr.write(`sender: ${error.message}\n`);
  process.exit(1);
});
