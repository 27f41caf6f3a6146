import { spawnSync } from 'node:child_process';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueBundle, type CertificateBundle } from '../../../engine/intake/certificates.ts';
import { TlsIntake, type TlsIntakeOptions } from '../../../engine/intake/tls-intake.ts';
import {
  MemorySink,
  Registry,
  closeAll,
  closed,
  rawClient,
  serverCertificate,
  sleep,
  tlsClient,
  until,
} from './support.ts';

// The TLS-TCP intake on 127.0.0.1: the client certificate names the configuration; unknown,
// foreign, absent and revoked certificates are refused; reading pauses while the sink lags and
// loses nothing; bounds (line length, idle senders, handshakes, connection count) are counted.

const now = Date.now();
let server: { keyPem: string; certPem: string };
let first: CertificateBundle;
let second: CertificateBundle;
let foreign: CertificateBundle;
const intakes: TlsIntake[] = [];

beforeAll(() => {
  server = serverCertificate();
  first = issueBundle({ configId: 'cfg_first', configName: 'First', now });
  second = issueBundle({ configId: 'cfg_second', configName: 'Second', now });
  foreign = issueBundle({ configId: 'cfg_foreign', configName: 'Not registered', now });
});

afterEach(async () => {
  closeAll();
  await Promise.all(intakes.splice(0).map((intake) => intake.close()));
});

async function start(
  options: Partial<TlsIntakeOptions> = {},
): Promise<{ intake: TlsIntake; port: number; sink: MemorySink; registry: Registry }> {
  const registry = new Registry().set(first).set(second);
  const sink = new MemorySink();
  const intake = new TlsIntake({ ...server, configs: registry, sink, ...options });
  intakes.push(intake);
  const port = await intake.listen('127.0.0.1', 0);
  return { intake, port, sink, registry };
}

const send = (socket: TLSSocket, text: string): Promise<void> =>
  new Promise((resolve, reject) => socket.write(text, (error) => (error ? reject(error) : resolve())));

describe('TlsIntake', () => {
  it('files lines under the configuration whose certificate the sender presents', async () => {
    const { port, sink, intake } = await start();
    const a = await tlsClient(port, first);
    const b = await tlsClient(port, second);
    await send(a, 'one from first\ntwo from first\n');
    await send(b, '11 from second');
    await until(() => sink.lines.length === 3);
    expect(sink.of('cfg_first')).toEqual(['one from first', 'two from first']);
    expect(sink.of('cfg_second')).toEqual(['from second']);
    const counts = intake.counts().configs;
    expect(counts.cfg_first).toMatchObject({ connectionsOpen: 1, connectionsTotal: 1, messages: 2, bytes: 30 });
    expect(counts.cfg_second).toMatchObject({ connectionsOpen: 1, messages: 1 });
  });

  it('refuses a sender without a client certificate', async () => {
    const { port, sink, intake } = await start();
    const socket = await tlsClient(port).catch(() => undefined);
    if (socket !== undefined) {
      socket.on('error', () => undefined);
      socket.write('sneaky\n');
      await closed(socket);
    }
    await until(() => intake.counts().refused.handshake === 1, 5000, 'a refused handshake');
    expect(sink.lines).toEqual([]);
  });

  it('refuses a certificate from a CA no configuration has', async () => {
    const { port, sink, intake } = await start();
    const socket = await tlsClient(port, foreign).catch(() => undefined);
    if (socket !== undefined) {
      socket.on('error', () => undefined);
      socket.write('sneaky\n');
      await closed(socket);
    }
    await until(() => intake.counts().refused.handshake === 1, 5000, 'a refused handshake');
    expect(sink.lines).toEqual([]);
  });

  it('revokes a regenerated bundle: its open connection closes at reload and it is refused after', async () => {
    const { port, sink, intake, registry } = await start();
    const old = await tlsClient(port, first);
    await send(old, 'before\n');
    await until(() => sink.lines.length === 1);

    const renewed = issueBundle({ configId: 'cfg_first', configName: 'First', now });
    registry.set(renewed);
    intake.reload();
    await closed(old);
    expect(intake.counts().configs.cfg_first).toMatchObject({ revokedClosed: 1, connectionsOpen: 0 });

    const again = await tlsClient(port, first).catch(() => undefined);
    if (again !== undefined) {
      again.on('error', () => undefined);
      again.write('after revocation\n');
      await closed(again);
    }
    const fresh = await tlsClient(port, renewed);
    await send(fresh, 'with the new bundle\n');
    await until(() => sink.lines.length === 2);
    expect(sink.of('cfg_first')).toEqual(['before', 'with the new bundle']);
    expect(intake.counts().refused.handshake).toBe(1);
  });

  it('closes the connections of a configuration deleted while data flows, keeping what arrived', async () => {
    const { port, sink, intake, registry } = await start();
    const socket = await tlsClient(port, second);
    await send(socket, 'kept 1\nkept 2\nhalf');
    await until(() => sink.lines.length === 2);
    registry.bundles.delete('cfg_second');
    intake.reload();
    await closed(socket);
    expect(sink.of('cfg_second')).toEqual(['kept 1', 'kept 2']);
    expect(intake.counts().configs.cfg_second).toMatchObject({ revokedClosed: 1, incomplete: 1, connectionsOpen: 0 });
  });

  it('stops reading while the sink lags and delivers everything once it drains', async () => {
    const { port, sink, intake } = await start({ highWaterMark: 10, lowWaterMark: 2, backlogPollMs: 10 });
    const socket = await tlsClient(port, first);
    sink.pending = 100;
    await send(socket, 'first\n');
    await until(() => intake.counts().paused, 5000, 'the intake to pause');
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`);
    socket.write(`${lines.join('\n')}\n`);
    await sleep(300);
    expect(sink.lines.length).toBe(1);

    sink.pending = 0;
    intake.drained();
    await until(() => sink.lines.length === 2001, 5000, 'all lines');
    expect(sink.of('cfg_first')).toEqual(['first', ...lines]);
    expect(intake.counts().paused).toBe(false);
  });

  it('shares the store between senders that outrun it: no sender is starved', async () => {
    // A store that takes 200 lines every 10 ms; both senders write as fast as TLS lets them.
    const sink = new (class extends MemorySink {
      override backlog(): number {
        return this.lines.length - taken;
      }
    })();
    let taken = 0;
    const registry = new Registry().set(first).set(second);
    const intake = new TlsIntake({
      ...server,
      configs: registry,
      sink,
      highWaterMark: 400,
      lowWaterMark: 100,
      backlogPollMs: 5,
    });
    intakes.push(intake);
    const port = await intake.listen('127.0.0.1', 0);
    const drain = setInterval(() => (taken = Math.min(sink.lines.length, taken + 200)), 10);
    const chunk = `${Array.from({ length: 500 }, (_, i) => `a line of the flood, number ${i}`).join('\n')}\n`;
    let flooding = true;
    const flood = async (socket: TLSSocket): Promise<void> => {
      while (flooding && !socket.destroyed)
        if (!socket.write(chunk))
          await new Promise((resolve) => {
            socket.once('drain', resolve);
            socket.once('close', resolve);
          });
    };
    try {
      const sockets = [await tlsClient(port, first), await tlsClient(port, second)];
      const floods = sockets.map((socket) => flood(socket));
      await until(() => sink.lines.length >= 40_000, 20_000, '40,000 lines');
      flooding = false;
      for (const socket of sockets) socket.destroy();
      await Promise.all(floods);
    } finally {
      clearInterval(drain);
    }
    const a = sink.of('cfg_first').length;
    const b = sink.of('cfg_second').length;
    expect(intake.counts().configs.cfg_first!.connectionsTotal).toBe(1);
    // Equal senders get shares of the same order (the starved one used to get a fourteenth).
    expect(Math.min(a, b) / Math.max(a, b)).toBeGreaterThan(0.5);
  });

  it('counts an over-long line and still receives the next one', async () => {
    const { port, sink, intake } = await start({ maxMessageBytes: 100 });
    const socket = await tlsClient(port, first);
    await send(socket, `${'x'.repeat(5000)}\nnext\n`);
    await until(() => sink.lines.length === 1);
    expect(sink.of('cfg_first')).toEqual(['next']);
    expect(intake.counts().configs.cfg_first?.oversized).toBe(1);
  });

  it('closes a slow-loris sender at the idle timeout, keeping its complete lines', async () => {
    const { port, sink, intake } = await start({ idleTimeoutMs: 300 });
    const socket = await tlsClient(port, first);
    await send(socket, 'complete\nparti');
    const started = Date.now();
    await closed(socket);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(sink.of('cfg_first')).toEqual(['complete']);
    expect(intake.counts().configs.cfg_first).toMatchObject({ idleClosed: 1, incomplete: 1, connectionsOpen: 0 });
  });

  it('drops a connection that never finishes its handshake at the handshake timeout', async () => {
    const { port, intake } = await start({ handshakeTimeoutMs: 200 });
    const socket = await rawClient(port);
    socket.write(Buffer.from([0x16, 0x03, 0x01]));
    await closed(socket);
    await until(() => intake.counts().refused.handshakeTimeout === 1);
  });

  it('refuses and counts connections over the limit', async () => {
    const { port, intake } = await start({ maxConnections: 5 });
    const sockets = await Promise.all(Array.from({ length: 8 }, () => rawClient(port)));
    for (const socket of sockets) socket.on('error', () => undefined);
    await until(() => intake.counts().refused.overLimit === 3, 5000, 'three refusals');
    expect(intake.counts().connections).toBe(5);
  });

  it('survives many connections at once and receives from each', async () => {
    const { port, sink, intake } = await start();
    const clients = await Promise.all(Array.from({ length: 200 }, () => tlsClient(port, second)));
    await Promise.all(clients.map((socket, i) => send(socket, `from ${i}\n`)));
    await until(() => sink.lines.length === 200, 20_000, '200 lines');
    expect(intake.counts().configs.cfg_second).toMatchObject({ connectionsOpen: 200, messages: 200 });
  });

  it('serves thousands of senders while hundreds of half-open connections time out', async () => {
    // Two descriptors per connection here (both ends are in this process); CI raises the limit.
    const limit = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim()) || 1024;
    const senders = Math.min(2000, Math.floor((limit - 1500) / 2));
    if (senders < 2000) console.log(`tls intake: ${senders} senders (open file limit ${limit})`);
    const { port, sink, intake } = await start({ handshakeTimeoutMs: 3000 });
    const halfOpen = await Promise.all(Array.from({ length: 500 }, () => rawClient(port)));
    for (const socket of halfOpen) socket.on('error', () => undefined);
    const clients: TLSSocket[] = [];
    for (let at = 0; at < senders; at += 250) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(250, senders - at) }, (_, i) => tlsClient(port, i % 2 ? first : second)),
      );
      clients.push(...batch);
    }
    await Promise.all(clients.map((socket, i) => send(socket, `from ${i}\n`)));
    await until(() => sink.lines.length === senders, 60_000, `${senders} lines`);
    const counts = intake.counts();
    expect(counts.configs.cfg_first!.connectionsOpen + counts.configs.cfg_second!.connectionsOpen).toBe(senders);
    expect(new Set(sink.lines.map((l) => l.line)).size).toBe(senders);
    await until(() => intake.counts().refused.handshakeTimeout === 500, 20_000, 'half-open connections dropped');
    expect(intake.counts().connections).toBe(senders);
  }, 120_000);

  it('takes a last line without LF when the sender closes its side', async () => {
    const { port, sink, intake } = await start();
    const socket = await tlsClient(port, first);
    socket.end('no newline at the end');
    await until(() => sink.lines.length === 1);
    expect(sink.of('cfg_first')).toEqual(['no newline at the end']);
    await until(() => intake.counts().configs.cfg_first?.connectionsOpen === 0);
  });
});
