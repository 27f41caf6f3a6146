import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

// The gateway port reads plain verdict requests itself and hands everything else to Node's HTTP
// server (engine/gateways/verdict-connection.ts). These tests speak raw HTTP/1.1 to it.

let engine: TestEngine;
let siteId: string;
let key: string;
let port: number;

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw connection that collects responses as they arrive. */
class Conn {
  readonly socket: Socket;
  #data = Buffer.alloc(0);
  #waiters: (() => void)[] = [];
  ended = false;

  constructor() {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.#data = Buffer.concat([this.#data, chunk]);
      this.#wake();
    });
    this.socket.on('end', () => {
      this.ended = true;
      this.#wake();
    });
    this.socket.on('error', () => undefined);
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next complete response (Content-Length bodies; 204 and 304 have none). */
  async next(options: { headRequest?: boolean } = {}, timeoutMs = 3000): Promise<Response> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.#take(options.headRequest === true);
      if (parsed) return parsed;
      if (this.ended) throw new Error(`connection ended; unparsed: ${this.#data.toString('latin1')}`);
      if (Date.now() > deadline)
        throw new Error(`no response within ${timeoutMs} ms; have: ${this.#data.toString('latin1')}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async closed(timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.ended;
  }

  #take(headRequest: boolean): Response | null {
    const end = this.#data.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const lines = this.#data.toString('latin1', 0, end).split('\r\n');
    const status = Number((lines[0] ?? '').split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (headers['transfer-encoding'] === 'chunked' && !headRequest) {
      // (Node's server answers an empty body in chunked encoding: only the last chunk is expected.)
      const last = this.#data.indexOf('0\r\n\r\n', end + 4);
      if (last === -1) return null;
      const chunked = this.#data.toString('utf8', end + 4, last);
      this.#data = this.#data.subarray(last + 5);
      return { status, headers, body: chunked };
    }
    const length = headRequest || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    if (this.#data.length < end + 4 + length) return null;
    const body = this.#data.toString('utf8', end + 4, end + 4 + length);
    this.#data = this.#data.subarray(end + 4 + length);
    return { status, headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

function verdictHead(
  extra: string[] = [],
  opts: { site?: string; key?: string; uri?: string; remote?: string } = {},
): string {
  return [
    'GET /_rampart/verdict HTTP/1.1',
    'Host: shop.example.com',
    `X-Rampart-Site: ${opts.site ?? siteId}`,
    `X-Rampart-Key: ${opts.key ?? key}`,
    `X-Original-URI: ${opts.uri ?? '/products?id=1'}`,
    'X-Original-Method: GET',
    `X-Rampart-Remote-Addr: ${opts.remote ?? '198.51.100.20'}`,
    'User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    ...extra,
    '',
    '',
  ].join('\r\n');
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  const admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'fast',
    domain: 'shop.example.com',
    runMode: 'block',
  });
  siteId = site.body.id;
  const global = await admin.request<{ accessKey: string }>('GET', '/site-global');
  key = global.body.accessKey;
  port = Number(new URL(engine.gatewayUrl).port);
});

afterAll(async () => {
  await engine?.dispose();
});

describe('verdict connections', () => {
  it('answers pipelined verdicts in order on one keep-alive connection', async () => {
    const conn = new Conn();
    conn.write(
      verdictHead() + verdictHead([], { uri: '/?q=<script>alert(1)</script>', remote: '203.0.113.7' }) + verdictHead(),
    );
    const answers = [await conn.next(), await conn.next(), await conn.next()];
    expect(answers.map((a) => a.status)).toEqual([401, 403, 401]);
    expect(answers.map((a) => a.headers['x-rampart-guard'])).toEqual(['TOKEN_MISS', 'OWASP', 'TOKEN_MISS']);
    expect(answers[0]?.headers.connection).toBe('keep-alive');
    expect(answers[0]?.headers['content-length']).toBe('0');
    expect(answers[0]?.headers.date).toMatch(/GMT$/);
    conn.write(verdictHead());
    expect((await conn.next()).status).toBe(401);
    expect(conn.ended).toBe(false);
    conn.close();
  });

  it('waits for a head that arrives a byte at a time', async () => {
    const conn = new Conn();
    const bytes = Buffer.from(verdictHead(), 'latin1');
    for (const byte of bytes) {
      conn.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    expect((await conn.next()).headers['x-rampart-guard']).toBe('TOKEN_MISS');
    conn.close();
  });

  it('hands a connection to Node at its first other request, which then serves verdicts too', async () => {
    const conn = new Conn();
    conn.write(verdictHead());
    expect((await conn.next()).status).toBe(401);
    conn.write('GET /_rampart/nothing-here HTTP/1.1\r\nHost: shop.example.com\r\n\r\n');
    const other = await conn.next();
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body)).toMatchObject({ error: { code: 'ROUTE_NOT_FOUND' } });
    conn.write(verdictHead());
    const again = await conn.next();
    expect(again.status).toBe(401);
    expect(again.headers['x-rampart-guard']).toBe('TOKEN_MISS');
    conn.close();
  });

  it('answers a verdict pipelined before another request, then lets Node answer that one', async () => {
    const conn = new Conn();
    conn.write(verdictHead() + 'GET /_rampart/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await conn.next()).status).toBe(401);
    expect((await conn.next()).status).toBe(404);
    conn.close();
  });

  it('leaves repeated headers to Node, whose joining rules apply', async () => {
    const conn = new Conn();
    conn.write(verdictHead([`X-Rampart-Site: ${siteId}`]));
    const answer = await conn.next();
    // Node joins the two values ("id, id"): no such site.
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'SITE_UNKNOWN' } });
    conn.close();
  });

  it('leaves invalid characters and bare LF line ends to Node, whose 400 says Connection: close', async () => {
    const control = new Conn();
    control.write(verdictHead(['X-Bad: a\u0001b']));
    const refused = await control.next();
    expect(refused.status).toBe(400);
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'request' } });
    expect(await control.closed()).toBe(true);

    const bare = new Conn();
    bare.write(verdictHead(['X-Bad: a\nX-Injected: 1']));
    const bareAnswer = await bare.next();
    expect(bareAnswer.status).toBe(400);
    expect(bareAnswer.headers.connection).toBe('close');
    expect(await bare.closed()).toBe(true);

    // A head with bare LF line ends only: it never has a CRLFCRLF to wait for.
    const lfOnly = new Conn();
    lfOnly.write(verdictHead().replace(/\r\n/g, '\n'));
    const lfAnswer = await lfOnly.next();
    expect(lfAnswer.status).toBe(400);
    expect(lfAnswer.headers.connection).toBe('close');
    expect(await lfOnly.closed()).toBe(true);
  });

  it('reads heads up to 64 KB (what nginx sends with large_client_header_buffers 4 8k and more), here and after a hand-over', async () => {
    const big = [
      `Cookie: a=${'c'.repeat(8000)}`,
      `Referer: https://shop.example.com/${'r'.repeat(8000)}`,
      `X-Large: ${'x'.repeat(30_000)}`,
    ];
    const conn = new Conn();
    conn.write(verdictHead(big, { uri: `/search?q=${'q'.repeat(6000)}` }));
    const answer = await conn.next();
    expect(answer).toMatchObject({
      status: 401,
      headers: { 'x-rampart-guard': 'TOKEN_MISS', connection: 'keep-alive' },
    });
    // Node's server, which serves the connection after another request, takes them too.
    conn.write('GET /_rampart/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await conn.next()).status).toBe(404);
    conn.write(verdictHead(big));
    expect((await conn.next()).headers['x-rampart-guard']).toBe('TOKEN_MISS');
    conn.close();
  });

  it('answers a verdict head over 64 KB with a pass verdict, logs it, and closes with Connection: close', async () => {
    const conn = new Conn();
    const head = verdictHead([`X-Large: ${'a'.repeat(40_000)}`, `X-Larger: ${'b'.repeat(40_000)}`], {
      uri: '/oversize-head',
      remote: '198.51.100.77',
    });
    // in pieces, as a socket delivers it
    for (let at = 0; at < head.length; at += 16_384) {
      conn.write(head.slice(at, at + 16_384));
      await new Promise((r) => setTimeout(r, 5));
    }
    const answer = await conn.next();
    expect(answer.status).toBe(204);
    expect(answer.headers['x-rampart-guard']).toBe('IGNORE');
    expect(answer.headers.connection).toBe('close');
    expect(await conn.closed()).toBe(true);
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${siteId}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(records.at(-1)).toMatchObject({
      request: 'GET /oversize-head HTTP/1.1',
      src_ip: '198.51.100.77',
      guard_status: 'IGNORE',
      action: 'pass',
    });
    expect(records.at(-1)?.head_bytes).toBeGreaterThan(80_000);
  });

  it('blocks a verdict head over 64 KB when the oversize-head guard says block (RAMPART_GATEWAY_OVERSIZE_HEAD=block)', async () => {
    const own = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_OVERSIZE_HEAD: 'block' });
    try {
      const admin = new ApiClient(own.url);
      await admin.setup('root@example.com', 'Kettle#Blue7');
      const site = await admin.request<{ id: string }>('POST', '/sites', {
        name: 'guarded',
        domain: 'shop.example.com',
        runMode: 'block',
      });
      const ownKey = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
      const socket = connect(Number(new URL(own.gatewayUrl).port), '127.0.0.1');
      socket.on('error', () => undefined);
      let text = '';
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.write(
        verdictHead([`X-Large: ${'a'.repeat(70_000)}`], { site: site.body.id, key: ownKey, uri: '/guarded' }),
      );
      await ended;
      expect(text).toMatch(/^HTTP\/1\.1 403 /);
      expect(text).toContain('Connection: close');
      await own.logStore.flush();
      const records = await own.logStore.read(`access:${site.body.id}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
      expect(records.at(-1)).toMatchObject({
        request: 'GET /guarded HTTP/1.1',
        action: 'block',
        waf_triggered_categories: 'oversize-head',
      });
    } finally {
      await own.dispose();
    }
  });

  it('answers a head over 64 KB on a connection Node serves with 431 and Connection: close', async () => {
    const conn = new Conn();
    conn.write('GET /_rampart/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await conn.next()).status).toBe(404);
    conn.write(verdictHead([`X-Large: ${'a'.repeat(70_000)}`]));
    const answer = await conn.next();
    expect(answer.status).toBe(431);
    expect(answer.headers.connection).toBe('close');
    expect(await conn.closed()).toBe(true);
  });

  it('gives a head 10 s to arrive (408, Connection: close), here and on a connection Node serves; idle connections stay open', async () => {
    const slow = new Conn();
    slow.write(verdictHead().slice(0, 60));
    const slowNode = new Conn();
    slowNode.write('GET /_rampart/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await slowNode.next()).status).toBe(404);
    slowNode.write(verdictHead().slice(0, 60));
    const idle = new Conn();
    idle.write('GET /_rampart/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.next()).status).toBe(404);
    const started = Date.now();
    const [timedOut, timedOutNode] = await Promise.all([slow.next({}, 13_000), slowNode.next({}, 13_000)]);
    expect(Date.now() - started).toBeGreaterThan(9_000);
    for (const answer of [timedOut, timedOutNode]) {
      expect(answer.status).toBe(408);
      expect(answer.headers.connection).toBe('close');
    }
    expect(await slow.closed()).toBe(true);
    expect(await slowNode.closed()).toBe(true);
    // The idle connection (Node's, which kept idle ones 5 s before) still answers after 10 s.
    expect(idle.ended).toBe(false);
    idle.write(verdictHead());
    expect((await idle.next()).headers['x-rampart-guard']).toBe('TOKEN_MISS');
    idle.close();
  }, 20_000);

  it('inspects a body that comes with the head, or after it', async () => {
    const conn = new Conn();
    const body = "q=1' UNION SELECT password FROM users--";
    // (other client addresses: a blocked client is denied for a minute)
    const post = (remote: string): string =>
      verdictHead(
        [
          `Content-Length: ${body.length}`,
          'Content-Type: application/x-www-form-urlencoded',
          `X-Original-Content-Length: ${body.length}`,
        ],
        {
          remote,
        },
      ).replace('GET /_rampart/verdict', 'POST /_rampart/verdict');
    conn.write(post('203.0.113.8') + body);
    const whole = await conn.next();
    expect(whole.status).toBe(403);
    expect(whole.headers['x-rampart-guard']).toBe('OWASP');
    conn.write(post('203.0.113.9') + body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    conn.write(body.slice(10) + verdictHead());
    const split = await conn.next();
    expect(split.headers['x-rampart-guard']).toBe('OWASP');
    expect((await conn.next()).headers['x-rampart-guard']).toBe('TOKEN_MISS');
    conn.close();
  });

  it('leaves a body over the inspection limit to Node, which still answers the verdict', async () => {
    const conn = new Conn();
    const body = 'a='.padEnd(200_000, 'b');
    conn.write(
      verdictHead([`Content-Length: ${body.length}`, 'Content-Type: application/x-www-form-urlencoded'], {
        remote: '203.0.113.10',
      }).replace('GET ', 'POST ') + body,
    );
    const answer = await conn.next();
    expect(answer.headers['x-rampart-guard'], JSON.stringify(answer)).toBeDefined();
    conn.write(verdictHead());
    const after = await conn.next();
    expect(after.headers['x-rampart-guard'], JSON.stringify(after)).toBe('TOKEN_MISS');
    conn.close();
  });

  it('answers errors as JSON: unknown site 404, wrong key 500 (nginx would read 401 as "reload")', async () => {
    const conn = new Conn();
    conn.write(verdictHead([], { site: 'no-such-site' }) + verdictHead([], { key: 'wrong' }));
    const unknown = await conn.next();
    const wrongKey = await conn.next();
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'SITE_UNKNOWN', field: 'X-Rampart-Site' } });
    expect(wrongKey.status).toBe(500);
    expect(JSON.parse(wrongKey.body)).toMatchObject({ error: { code: 'ACCESS_KEY_INVALID' } });
    conn.close();
  });

  it('answers a HEAD verdict that fails with the error headers and no body', async () => {
    const conn = new Conn();
    conn.write(verdictHead([], { site: 'no-such-site' }).replace('GET ', 'HEAD ') + verdictHead());
    const head = await conn.next({ headRequest: true });
    expect(head.status).toBe(404);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    // the next answer starts right after the head: the HEAD answer had no body
    const next = await conn.next();
    expect(next.status).toBe(401);
    expect(next.headers['x-rampart-guard']).toBe('TOKEN_MISS');
    conn.close();
  });

  it('closes after answering a request with Connection: close', async () => {
    const conn = new Conn();
    conn.write(verdictHead(['Connection: close']));
    const answer = await conn.next();
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
    expect(await conn.closed()).toBe(true);
  });

  it('lets the engine stop promptly while verdict connections are idle, even one whose peer never closes', async () => {
    const own = await startTestEngine();
    const admin = new ApiClient(own.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
    const ownPort = Number(new URL(own.gatewayUrl).port);
    const socket = connect({ port: ownPort, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /_rampart/verdict HTTP/1.1\r\nHost: x\r\nX-Rampart-Site: none\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    // This client never closes its side: the engine cuts it off after two seconds.
    socket.on('error', () => undefined);
    const started = Date.now();
    await own.dispose();
    expect(Date.now() - started).toBeLessThan(5000);
    socket.destroy();
  });
});
