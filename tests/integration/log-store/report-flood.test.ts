import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

// The clock stands still, so no report budget refills while the flood runs: exactly the burst passes.
const clock = new ManualClock(Date.UTC(2026, 10, 22, 8, 0, 0));
let engine: TestEngine;
let siteId: string;

const HUMAN = { v: 1, mode: 'reload', event: 'load', signs: [], fp: 'abcdef0123456789' };

function report(body: unknown, from: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${engine.gatewayUrl}/_rampart/report`, {
    method: 'POST',
    headers: { 'x-rampart-site': siteId, 'content-type': 'application/json', 'x-rampart-remote-addr': from, ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function detections(): Promise<Record<string, unknown>[]> {
  await engine.logStore.flush();
  return engine.logStore.read(`detection:${siteId}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_REPORTS_PER_MINUTE: '30' }, { clock });
  const admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const res = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'flood',
    domain: 'flood.example.com',
    runMode: 'monitor',
  });
  expect(res.status, res.text).toBe(201);
  siteId = res.body.id;
});
afterAll(() => engine?.dispose());

describe('a flood of probe reports', () => {
  it('from one address: the per-minute budget is written, the rest gets 429 with Retry-After and writes nothing', async () => {
    const answers = await Promise.all(Array.from({ length: 500 }, () => report(HUMAN, '198.51.100.66')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(470);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    const limited = answers.findIndex((a) => a.status === 429);
    expect(Number(answers[limited]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(bodies[limited] ?? '')).toMatchObject({ error: { code: 'RATE_LIMITED' } });

    const records = (await detections()).filter((r) => r.src_ip === '198.51.100.66');
    expect(records).toHaveLength(30);
  });

  it('another address keeps its own budget', async () => {
    expect((await report(HUMAN, '198.51.100.67')).status).toBe(200);
  });

  it('a refused report (malformed, a forged proof of work) is answered 400 and writes no record', async () => {
    const before = (await detections()).length;
    const malformed = await report({ ...HUMAN, fp: 'NOT HEX' }, '198.51.100.68');
    expect(malformed.status).toBe(400);
    const forged = await report({ ...HUMAN, pow: { challenge: 'A'.repeat(48), counter: 1 } }, '198.51.100.68');
    expect(forged.status).toBe(400);
    expect((await report('{not json', '198.51.100.68')).status).toBe(400);
    const after = await detections();
    expect(after).toHaveLength(before);
    expect(after.some((r) => r.detection_result === 'refused')).toBe(false);
  });

  it('a report with a 12 KB User-Agent is stored with it cut to 2 KB, the record within 8 KB', async () => {
    const huge = 'Mozilla/5.0 '.repeat(1000);
    expect((await report(HUMAN, '198.51.100.69', { 'user-agent': huge })).status).toBe(200);
    const record = (await detections()).find((r) => r.src_ip === '198.51.100.69');
    expect(record).toBeDefined();
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThanOrEqual(8 * 1024);
    expect((record?.user_agent as string).length).toBeLessThanOrEqual(2048);
    expect(record?._truncated).toContain('user_agent');
  });
});
