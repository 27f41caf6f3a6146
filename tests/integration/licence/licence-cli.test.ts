import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

let dir: string;
let engine: TestEngine;
let admin: ApiClient;

const cli = (...args: string[]): string =>
  execFileSync(process.execPath, ['--import', 'tsx', 'engine/licence/cli.ts', ...args], {
    encoding: 'utf8',
    stdio: 'pipe',
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-licence-cli-'));
  cli('keygen', '--out', join(dir, 'keys'));
  engine = await startTestEngine({
    RAMPART_LICENCE_PUBLIC_KEY: join(dir, 'keys', 'vendor-public.pem'),
    RAMPART_EDITION: 'A',
  });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('licence CLI and import', () => {
  it('a licence signed with the vendor CLI imports and makes the install formal', async () => {
    await writeFile(
      join(dir, 'payload.json'),
      JSON.stringify({
        enterpriseId: 'ENT-7',
        customerName: 'Example Bank',
        issuedAt: '2026-11-01T00:00:00Z',
        modules: [{ module: 'basic', expiresAt: '2099-01-01T00:00:00Z' }],
        purchases: [
          {
            orderTime: '2026-10-30T09:00:00Z',
            orderNumber: 'SO-42',
            product: 'Basic application security',
            expiresAt: '2099-01-01T00:00:00Z',
            status: 'paid',
          },
        ],
      }),
    );
    expect(
      cli(
        'sign',
        '--key',
        join(dir, 'keys', 'vendor-private.pem'),
        '--in',
        join(dir, 'payload.json'),
        '--out',
        join(dir, 'bank.lic'),
      ),
    ).toContain('wrote');
    const res = await admin.request<{
      versionType: string;
      customerName: string;
      modules: { module: string; state: string }[];
    }>('POST', '/licence', {
      content: await readFile(join(dir, 'bank.lic'), 'utf8'),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ versionType: 'formal', customerName: 'Example Bank' });
    expect(res.body.modules).toEqual([
      expect.objectContaining({ module: 'basic', state: 'activated' }),
      expect.objectContaining({ module: 'advanced', state: 'not_purchased' }),
    ]);
    const purchases = await admin.request<{ items: { orderNumber: string }[] }>('GET', '/licence/purchases');
    expect(purchases.body.items.map((p) => p.orderNumber)).toEqual(['SO-42']);
    const renew = await admin.request('POST', '/licence/purchases/SO-42/renew', {});
    expect(renew.status).toBe(409);
    expect(renew.body).toMatchObject({ error: { code: 'RENEW_CONTACT_SALES' } });
  });

  it('a tampered licence file is refused and changes nothing', async () => {
    const file = JSON.parse(await readFile(join(dir, 'bank.lic'), 'utf8')) as { payload: string };
    const payload = JSON.parse(Buffer.from(file.payload, 'base64').toString()) as { customerName: string };
    payload.customerName = 'Someone Else';
    file.payload = Buffer.from(JSON.stringify(payload)).toString('base64');
    const res = await admin.request('POST', '/licence', { content: JSON.stringify(file) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'LICENCE_SIGNATURE_INVALID', field: 'content' } });
    expect((await admin.request<{ customerName: string }>('GET', '/licence')).body.customerName).toBe('Example Bank');
  });

  it('the CLI explains its usage and refuses an invalid payload naming the field', () => {
    expect(() => cli('frobnicate')).toThrow(/usage/);
    return writeFile(join(dir, 'bad.json'), JSON.stringify({ enterpriseId: '' })).then(() => {
      expect(() =>
        cli(
          'sign',
          '--key',
          join(dir, 'keys', 'vendor-private.pem'),
          '--in',
          join(dir, 'bad.json'),
          '--out',
          join(dir, 'x.lic'),
        ),
      ).toThrow(/enterpriseId/);
    });
  });
});
