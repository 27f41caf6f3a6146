import { createServer, type IncomingMessage } from 'node:http';
import { createSocket } from 'node:dgram';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleRecord } from '#engine/config-store';
import { Notifier, webhookSignature } from '#engine/rules';
import { ManualClock, type Logger } from '#engine/shared';

const silent = {
  warn: () => undefined,
  info: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as Logger;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

function rule(notify: Partial<RuleRecord['notify']>): RuleRecord {
  return {
    id: 'rule_1',
    name: 'Ban brute force',
    description: '',
    siteId: 'site_1',
    events: ['evt_1'],
    action: 'block',
    target: 'ip',
    durationSeconds: 60,
    priority: 1,
    notify: { emails: [], webhook: null, syslog: null, throttleSeconds: 300, ...notify },
    createdAt: 0,
    updatedAt: 0,
  };
}

const alert = {
  at: Date.UTC(2026, 10, 27, 8),
  ruleId: 'rule_1',
  ruleName: 'Ban brute force',
  siteId: 'site_1',
  eventId: 'evt_1',
  eventName: 'Login brute force',
  object: 'ip',
  key: '203.0.113.9',
  action: 'block' as const,
  banned: 'ip:203.0.113.9',
  meta: { count: 10 },
};

async function webhookServer(statuses: number[]) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

describe('rule notifications', () => {
  it('posts a JSON webhook signed with HMAC-SHA256 of the body, retrying a failing receiver', async () => {
    const hook = await webhookServer([500, 503, 200]);
    const notifier = new Notifier({ clock: new ManualClock(), logger: silent, retryDelaysMs: [10, 10, 10] });
    notifier.notify(rule({ webhook: { url: hook.url, secret: 's3cret' } }), alert);
    await notifier.settle();
    expect(hook.received).toHaveLength(3);
    const last = hook.received[2]!;
    expect(last.headers['x-rampart-signature']).toBe(webhookSignature('s3cret', last.body));
    expect(JSON.parse(last.body)).toMatchObject({
      type: 'rule.fired',
      ruleName: 'Ban brute force',
      key: '203.0.113.9',
    });
    expect(notifier.counts).toMatchObject({ sent: 1, failed: 0, retries: 2 });
  });

  it('gives up on a client error at once and counts the failure', async () => {
    const hook = await webhookServer([404]);
    const notifier = new Notifier({ clock: new ManualClock(), logger: silent, retryDelaysMs: [10, 10] });
    notifier.notify(rule({ webhook: { url: hook.url, secret: '' } }), alert);
    await notifier.settle();
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.headers['x-rampart-signature']).toBeUndefined();
    expect(notifier.counts).toMatchObject({ sent: 0, failed: 1 });
  });

  it('sends at most one notification per rule per throttle period and counts the ones held back in the next', async () => {
    const hook = await webhookServer([]);
    const clock = new ManualClock();
    const notifier = new Notifier({ clock, logger: silent });
    const r = rule({ webhook: { url: hook.url, secret: '' }, throttleSeconds: 60 });
    notifier.notify(r, alert);
    notifier.notify(r, alert);
    notifier.notify(r, alert);
    clock.advance(60_000);
    notifier.notify(r, alert);
    await notifier.settle();
    expect(hook.received.map((h) => (JSON.parse(h.body) as { suppressed: number }).suppressed)).toEqual([0, 2]);
    expect(notifier.counts.suppressed).toBe(2);
  });

  it('writes an RFC 5424 line to syslog over UDP and TCP', async () => {
    const udp = createSocket('udp4');
    const udpLines: string[] = [];
    udp.on('message', (m) => udpLines.push(m.toString()));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => udp.close(() => r())));
    const tcpLines: string[] = [];
    const tcp = createTcpServer((s) => s.on('data', (d) => tcpLines.push(d.toString())));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => tcp.close(() => r())));

    const clock = new ManualClock();
    const notifier = new Notifier({ clock, logger: silent });
    notifier.notify(rule({ syslog: { host: '127.0.0.1', port: udp.address().port, protocol: 'udp' } }), alert);
    await notifier.settle();
    clock.advance(300_000);
    notifier.notify(
      rule({ syslog: { host: '127.0.0.1', port: (tcp.address() as AddressInfo).port, protocol: 'tcp' } }),
      alert,
    );
    await notifier.settle();
    await new Promise((r) => setTimeout(r, 50));
    expect(udpLines[0]).toMatch(
      /^<132>1 2026-11-27T08:00:00\.000Z \S+ rampart - rule-fired \[rampart@32473 rule="Ban brute force"/,
    );
    expect(tcpLines.join('')).toMatch(/banned ip:203\.0\.113\.9\n$/);
  });

  it('e-mails each address through the SMTP settings, and counts a failure when there are none', async () => {
    const sent: string[] = [];
    const clock = new ManualClock();
    const withMail = new Notifier({
      clock,
      logger: silent,
      mail: (to, subject) => {
        sent.push(`${to} ${subject}`);
        return Promise.resolve();
      },
    });
    withMail.notify(rule({ emails: ['soc@example.com'] }), alert);
    await withMail.settle();
    expect(sent).toEqual(['soc@example.com [Rampart] Ban brute force: Login brute force']);
    const without = new Notifier({ clock, logger: silent });
    without.notify(rule({ emails: ['soc@example.com'] }), alert);
    await without.settle();
    expect(without.counts.failed).toBe(1);
  });
});
