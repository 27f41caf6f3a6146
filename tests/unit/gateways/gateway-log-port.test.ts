import { afterEach, describe, expect, it } from 'vitest';
import { AccessMerge, GatewayLogPort, gatewayTrust, loneAccessRecord, type GatewayLogLine } from '#engine/gateways';
import { silentLogger } from '#engine/shared';
import { accessRecord, decide } from '#engine/verdict';
import { ports, request, site } from '../verdict/fixture.ts';

// What the gateway log port does with each datagram: trusted gateways only, existing sites only,
// malformed ones counted and dropped, a line merged into its held record or stored alone.

const SITE = site({ sourceIp: { mode: 'xff', xffMode: 'rightmost', customHeader: '' } });
const NOW = 1_767_225_600_000;

function datagram(fields: Record<string, string>): Buffer {
  const line = {
    rampart: '1',
    site: 'site_1',
    id: 'req0001',
    status: '201',
    bytes: '1234',
    time: '0.250',
    msec: String((NOW + 250) / 1000),
    guard: 'IGNORE',
    addr: '127.0.0.1',
    scheme: 'https',
    host: 'shop.example.com',
    request: 'POST /orders HTTP/1.1',
    user_agent: 'Mozilla/5.0',
    referrer: '',
    xff: '198.51.100.4',
    real_ip: '',
    ...fields,
  };
  return Buffer.from(`<190>Jan  1 00:00:00 rampart: ${JSON.stringify(line)}`);
}

let merges: AccessMerge[] = [];
afterEach(() => {
  for (const merge of merges) merge.close();
  merges = [];
});

function setup(trusted: readonly string[] = ['127.0.0.0/8'], heartbeats: string[] = []) {
  const written: Record<string, unknown>[] = [];
  const alone: GatewayLogLine[] = [];
  const merge = new AccessMerge({
    append: (_log, record) => written.push(JSON.parse(JSON.stringify(record)) as Record<string, unknown>),
    now: () => 0,
    waitMs: 3000,
    maxPending: 100,
  });
  merges.push(merge);
  const port = new GatewayLogPort({
    isGateway: gatewayTrust(trusted, { heartbeatAddresses: () => heartbeats }),
    site: (id) => (id === 'site_1' ? SITE : undefined),
    merge,
    alone: (_site, line) => alone.push(line),
    logger: silentLogger,
  });
  const facts = request({ uri: '/orders', method: 'POST' });
  const record = accessRecord(SITE, facts, decide(SITE, facts, ports()), NOW, null, null);
  merge.hold('req0001', { log: 'access:site_1', siteId: 'site_1', record });
  return { port, merge, written, alone };
}

describe('the gateway log port', () => {
  it('merges a trusted gateway’s line into the held record of its request', () => {
    const { port, written, alone } = setup();
    port.receive(datagram({}), '127.0.0.1');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ status: 201, body_bytes_sent: 1234, request_time: 0.25, _timestamp: NOW });
    expect(alone).toEqual([]);
    expect(port.counts).toMatchObject({ received: 1, merged: 1, alone: 0 });
  });

  it('hears an IPv4 gateway arriving as an IPv4-mapped IPv6 address', () => {
    const { port } = setup();
    port.receive(datagram({}), '::ffff:127.0.0.1');
    expect(port.counts.merged).toBe(1);
  });

  it('stores a line alone when no record waits for it', () => {
    const { port, written, alone } = setup();
    port.receive(datagram({ id: 'other' }), '127.0.0.1');
    expect(alone.map((l) => l.id)).toEqual(['other']);
    expect(written).toEqual([]);
    expect(port.counts).toMatchObject({ merged: 0, alone: 1 });
  });

  it('drops, and counts, a line from an address that is neither trusted nor heartbeating', () => {
    const { port, merge, written, alone } = setup(['10.0.0.0/8']);
    port.receive(datagram({}), '127.0.0.1');
    expect([written, alone, merge.size]).toEqual([[], [], 1]);
    expect(port.counts).toMatchObject({ received: 1, untrusted: 1, merged: 0 });
  });

  it('hears an address that sent heartbeats', () => {
    const { port } = setup(['10.0.0.0/8'], ['192.0.2.44']);
    port.receive(datagram({}), '192.0.2.44');
    expect(port.counts.merged).toBe(1);
  });

  it('drops, and counts, a line of a site that does not exist', () => {
    const { port, merge, alone } = setup();
    port.receive(datagram({ site: 'site_gone' }), '127.0.0.1');
    expect([alone, merge.size]).toEqual([[], 1]);
    expect(port.counts.unknownSite).toBe(1);
  });

  it('drops, and counts, malformed datagrams without throwing', () => {
    const { port, merge } = setup();
    for (const input of [Buffer.alloc(0), Buffer.from('<190>x rampart: {"rampart":"1"'), datagram({ status: 'x' })]) {
      expect(() => port.receive(input, '127.0.0.1')).not.toThrow();
    }
    expect(port.counts).toMatchObject({ received: 3, malformed: 3, merged: 0 });
    expect(merge.size).toBe(1);
  });

  it('keeps going when storing a line alone fails', () => {
    const merge = new AccessMerge({ append: () => undefined, now: () => 0, waitMs: 10, maxPending: 1 });
    merges.push(merge);
    const port = new GatewayLogPort({
      isGateway: () => true,
      site: () => SITE,
      merge,
      alone: () => {
        throw new Error('store closed');
      },
      logger: silentLogger,
    });
    expect(() => port.receive(datagram({}), '127.0.0.1')).not.toThrow();
    expect(port.counts.alone).toBe(0);
  });
});

describe('an access record from a line alone', () => {
  const line: GatewayLogLine = {
    site: 'site_1',
    id: 'req0002',
    status: 403,
    bodyBytesSent: 17,
    requestTimeSeconds: 0.004,
    endMs: NOW + 4,
    guard: 'BLOCKLIST',
    addr: '127.0.0.1',
    scheme: 'http',
    host: 'shop.example.com',
    request: `GET /${'a'.repeat(5000)} HTTP/1.1`,
    userAgent: 'curl/8.0',
    referrer: '',
    xff: '203.0.113.9',
    realIp: '',
  };

  it('carries the request and response as nginx saw them, at the request’s start, the source IP as the site resolves it', () => {
    const record = loneAccessRecord(SITE, line, NOW + 1000, () => null);
    expect(record).toMatchObject({
      _timestamp: NOW,
      log_id: 'req0002',
      site_id: 'site_1',
      hostname: 'shop.example.com',
      src_ip: '203.0.113.9',
      status: 403,
      body_bytes_sent: 17,
      request_time: 0.004,
      guard_status: 'BLOCKLIST',
      user_agent: 'curl/8.0',
    });
    expect(String(record.request).length).toBeLessThan(2100);
    expect(record).not.toHaveProperty('action');
  });

  it('is stored at Rampart’s time when nginx’s clock is far off or the line has none', () => {
    expect(loneAccessRecord(SITE, { ...line, endMs: NOW - 3_600_000 }, NOW, () => null)._timestamp).toBe(NOW);
    expect(loneAccessRecord(SITE, { ...line, endMs: null }, NOW, () => null)._timestamp).toBe(NOW);
  });
});
