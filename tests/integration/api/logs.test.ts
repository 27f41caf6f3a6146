/**
 * The log search API over a real engine: who may search (administrators and guests, spec 5.2), the
 * log catalogue, search / histogram / fields / one record, exports that a spreadsheet cannot run,
 * a live tail over server-sent events, storage settings and a confirmed purge, and bad input
 * answered with a 4xx naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { TestSmtpServer } from '../../support/smtp.ts';

const PASSWORD = 'Kettle#Blue7';
let engine: TestEngine;
let smtp: TestSmtpServer;
let admin: ApiClient;
let guest: ApiClient;
let user: ApiClient;
let siteId: string;
const now = Date.now();

async function account(role: 'guest' | 'user'): Promise<ApiClient> {
  const email = `${role}@example.com`;
  expect((await admin.request('POST', '/accounts', { email, role })).status).toBe(201);
  const token = new URL(TestSmtpServer.linkIn(await smtp.waitFor(email))).searchParams.get('token');
  const client = new ApiClient(engine.url);
  expect((await client.request('POST', '/links/complete', { token, password: PASSWORD })).status).toBe(204);
  expect((await client.signIn(email, PASSWORD)).status).toBe(200);
  return client;
}

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  engine = await startTestEngine({ ...smtp.env(), RAMPART_EDITION: 'B' }, { ruleSetLocations: [] });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', PASSWORD);
  guest = await account('guest');
  user = await account('user');
  siteId = (
    await admin.request<{ id: string }>('POST', '/sites', {
      name: 'Shop',
      domain: 'shop.example.com',
      accessMethod: 'plugin',
    })
  ).body.id;
  for (let i = 0; i < 300; i++) {
    engine.logStore.append(`access:${siteId}`, {
      _timestamp: now - 3_600_000 + i * 10_000,
      i,
      src_ip: `192.0.2.${i % 10}`,
      status: i % 4 === 0 ? 403 : 200,
      guard_status: i % 4 === 0 ? 'OWASP' : 'PASS',
      user_agent: i === 7 ? '=HYPERLINK("http://evil.example")' : 'Mozilla/5.0',
    });
  }
  await engine.logStore.flush();
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  await smtp?.stop();
});

const LAST_DAY = { last: '24h' } as const;

describe('the log search API', () => {
  it('lists the logs a guest can search, per site, named with the site name in edition B', async () => {
    const res = await guest.request<{ items: { log: string; kind: string; label: string; available: boolean }[] }>(
      'GET',
      '/logs',
    );
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ log: `access:${siteId}`, kind: 'access', label: 'Shop', available: true }),
        expect.objectContaining({ log: `detection:${siteId}`, kind: 'detection' }),
        expect.objectContaining({ log: 'trigger', kind: 'trigger' }),
      ]),
    );
  });

  it('is for administrators and guests, not users (spec 5.2)', async () => {
    expect((await user.request('GET', '/logs')).status).toBe(403);
    expect((await new ApiClient(engine.url).request('GET', '/logs')).status).toBe(401);
  });

  it('searches, pages, counts and describes the fields', async () => {
    const body = { log: `access:${siteId}`, range: LAST_DAY, query: 'status:403', limit: 50 };
    const first = await guest.request<{ records: { id: string; record: { i: number } }[]; nextCursor: string }>(
      'POST',
      '/logs/search',
      body,
    );
    expect(first.status, first.text).toBe(200);
    expect(first.body.records).toHaveLength(50);
    expect(first.body.records[0]!.record.i).toBe(296);
    const second = await guest.request<{ records: { record: { i: number } }[]; nextCursor: string | null }>(
      'POST',
      '/logs/search',
      { ...body, cursor: first.body.nextCursor },
    );
    expect(second.body.records.map((r) => r.record.i)).toEqual(Array.from({ length: 25 }, (_, k) => 96 - 4 * k));
    expect(second.body.nextCursor).toBeNull();

    const histogram = await guest.request<{ total: number; source: string }>('POST', '/logs/histogram', {
      log: `access:${siteId}`,
      range: LAST_DAY,
      query: 'guard_status:OWASP',
    });
    expect(histogram.body).toMatchObject({ total: 75, source: 'rollups' });

    const fields = await guest.request<{ fields: { field: string; top: { value: string; count: number }[] }[] }>(
      'POST',
      '/logs/fields',
      { log: `access:${siteId}`, range: LAST_DAY, sample: 100 },
    );
    expect(fields.body.fields.find((f) => f.field === 'status')?.top).toEqual([
      { value: '200', count: 75 },
      { value: '403', count: 25 },
    ]);

    const one = await guest.request<{ record: { i: number }; older: unknown[]; newer: unknown[] }>(
      'GET',
      `/logs/records/${first.body.records[1]!.id}?around=2`,
    );
    expect(one.status).toBe(200);
    expect(one.body.record.i).toBe(292);
    expect(one.body.older).toHaveLength(2);
    expect(one.body.newer).toHaveLength(2);
  });

  it('exports CSV whose cells a spreadsheet cannot run, and NDJSON', async () => {
    const csv = await guest.request('POST', '/logs/export', {
      log: `access:${siteId}`,
      range: LAST_DAY,
      query: 'src_ip:192.0.2.7',
      format: 'csv',
      columns: ['i', 'src_ip', 'user_agent'],
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/attachment; filename="access_.*\.csv"/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('i,src_ip,user_agent');
    expect(lines).toHaveLength(31);
    expect(lines.at(-1)).toBe(`7,192.0.2.7,"'=HYPERLINK(""http://evil.example"")"`);
    const nd = await guest.request('POST', '/logs/export', {
      log: `access:${siteId}`,
      range: LAST_DAY,
      query: 'status:403',
      format: 'ndjson',
    });
    const rows = nd.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: number });
    expect(rows).toHaveLength(75);
    expect(rows.every((r) => r.status === 403)).toBe(true);
  });

  it('streams new matching records as server-sent events', async () => {
    const controller = new AbortController();
    const response = await fetch(
      `${engine.url}/api/v1/logs/tail?log=${encodeURIComponent(`access:${siteId}`)}&query=${encodeURIComponent('status:418')}`,
      { headers: { cookie: guest.cookie ?? '' }, signal: controller.signal },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    engine.logStore.append(`access:${siteId}`, { _timestamp: Date.now(), status: 200, i: -1 });
    engine.logStore.append(`access:${siteId}`, { _timestamp: Date.now(), status: 418, i: -2 });
    await engine.logStore.flush();
    let text = '';
    const deadline = setTimeout(() => controller.abort(), 5000);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += new TextDecoder().decode(chunk);
      if (text.includes('event: record')) break;
    }
    clearTimeout(deadline);
    controller.abort();
    const data = /data: (.*)\n/.exec(text.slice(text.indexOf('event: record')))?.[1] ?? '{}';
    expect((JSON.parse(data) as { record: { i: number } }).record.i).toBe(-2);
    expect(text).not.toContain('"i":-1');
  });

  it('answers bad input with a 4xx naming the field', async () => {
    const bad = async (body: unknown): Promise<{ status: number; field?: string; reason?: unknown }> => {
      const res = await guest.request<{ error: { field?: string; params?: { reason?: unknown } } }>(
        'POST',
        '/logs/search',
        body,
      );
      return { status: res.status, field: res.body?.error?.field, reason: res.body?.error?.params?.reason };
    };
    const log = `access:${siteId}`;
    expect(await bad({ log, range: LAST_DAY, query: 'status:(403' })).toMatchObject({
      status: 400,
      field: 'query',
      reason: 'query_syntax',
    });
    expect(await bad({ log, range: LAST_DAY, query: 'src_ip:/(a)\\1/' })).toMatchObject({
      status: 400,
      reason: 'not_linear',
    });
    expect(await bad({ log, range: { from: 10, to: 5 } })).toMatchObject({ status: 400 });
    expect(await bad({ log, range: LAST_DAY, cursor: 'bm9wZQ' })).toMatchObject({ status: 400, field: 'cursor' });
    expect((await bad({ log: 'access:nosuchsite', range: LAST_DAY })).status).toBe(404);
    // 20,000 nested NOTs (written out by hand: JSON.stringify itself would run out of stack).
    const filter = `${'{"op":"not","filter":'.repeat(20_000)}{"op":"exists","field":"a"}${'}'.repeat(20_000)}`;
    const deep = await guest.request<{ error: { field: string } }>('POST', '/logs/search', undefined, {
      rawBody: `{"log":${JSON.stringify(log)},"range":{"last":"24h"},"filter":${filter}}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({ code: 'INVALID_JSON', field: 'body' });
    // Deeper than a filter may nest (16 levels) but within the JSON limit: the filter is refused.
    let nested: unknown = { op: 'exists', field: 'a' };
    for (let i = 0; i < 20; i++) nested = { op: 'not', filter: nested };
    expect(await bad({ log, range: LAST_DAY, filter: nested })).toMatchObject({ status: 400, field: 'filter' });
  });
});

describe('log storage', () => {
  it('shows the size of each log and the retention, and sets the retention', async () => {
    const res = await admin.request<{ retentionDays: Record<string, number>; logs: { log: string; label: string }[] }>(
      'GET',
      '/storage',
    );
    expect(res.status).toBe(200);
    expect(res.body.retentionDays.access).toBe(30);
    expect(res.body.logs).toEqual(
      expect.arrayContaining([expect.objectContaining({ log: `access:${siteId}`, label: 'Shop' })]),
    );
    const set = await admin.request<{ retentionDays: Record<string, number> }>('PUT', '/storage', {
      retentionDays: { access: 7 },
    });
    expect(set.body.retentionDays).toMatchObject({ access: 7, detection: 30 });
    const refused = await admin.request<{ error: { field: string } }>('PUT', '/storage', {
      retentionDays: { access: 0 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('retentionDays.access');
    expect((await guest.request('GET', '/storage')).status).toBe(403);
  });

  it('purges a log only when its name is typed to confirm', async () => {
    const log = `access:${siteId}`;
    const unconfirmed = await admin.request<{ error: { field: string } }>('POST', '/storage/purge', {
      log,
      confirm: 'yes',
    });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body.error.field).toBe('confirm');
    const done = await admin.request<{ logs: { log: string }[] }>('POST', '/storage/purge', { log, confirm: log });
    expect(done.status).toBe(200);
    expect(done.body.logs.some((l) => l.log === log)).toBe(false);
    const after = await guest.request<{ records: unknown[] }>('POST', '/logs/search', { log, range: { all: true } });
    expect(after.body.records).toEqual([]);
  });
});
