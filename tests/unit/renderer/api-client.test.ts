import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError, NETWORK_ERROR } from '../../../renderer/src/lib/api.ts';
import {
  deleteSite,
  downloadSitePlugin,
  exportLogs,
  getSession,
  getSetupStatus,
  listAccounts,
  updateSite,
} from '../../../engine/api/contracts/index.ts';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function answer(status: number, body?: unknown, headers: Record<string, string> = {}): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit = {}) => {
    sent.push({
      url,
      method: init.method ?? 'GET',
      headers: (init.headers ?? {}) as Record<string, string>,
      body: init.body as string | undefined,
    });
    return Promise.resolve(new Response(body === undefined ? null : JSON.stringify(body), { status, headers }));
  });
  return sent;
}

afterEach(() => vi.unstubAllGlobals());

describe('call(contract, input)', () => {
  it("builds the contract's request: path parameters, query, JSON body and the CSRF header on writes", async () => {
    const client = new ApiClient();
    client.csrfToken = 'csrf-1';
    const sent = answer(200, { id: 's 1', name: 'Shop' });
    const site = await client.call(updateSite, { params: { id: 's 1' }, body: { name: 'Shop' } });
    expect(site.name).toBe('Shop');
    expect(sent[0]).toMatchObject({
      url: '/api/v1/sites/s%201',
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'csrf-1' },
      body: JSON.stringify({ name: 'Shop' }),
    });

    answer(200, { items: [], nextCursor: null, total: 0 });
    const page = await client.call(listAccounts, { query: { activation: 'pending', enabled: 'false' } });
    expect(page.total).toBe(0);
  });

  it('sends no CSRF header on reads, and takes an operation without input without one', async () => {
    const client = new ApiClient();
    client.csrfToken = 'csrf-1';
    const sent = answer(200, { needed: true });
    expect(await client.call(getSetupStatus)).toEqual({ needed: true });
    expect(sent[0]?.headers['X-CSRF-Token']).toBeUndefined();
    expect(sent[0]?.body).toBeUndefined();
  });

  it('answers undefined for 204', async () => {
    answer(204);
    expect(await new ApiClient().call(deleteSite, { params: { id: 's1' } })).toBeUndefined();
  });

  it("fails with the engine's code, field, params and every problem", async () => {
    answer(400, {
      error: {
        code: 'VALIDATION_FAILED',
        message: 'name: is required',
        field: 'name',
        params: { code: 'too_small', minimum: 1 },
        problems: [
          { field: 'name', message: 'name: is required', params: { code: 'too_small', minimum: 1 } },
          { field: 'blockStatus', message: 'blockStatus: too big', params: { code: 'too_big', maximum: 599 } },
        ],
      },
    });
    const error: unknown = await new ApiClient()
      .call(updateSite, { params: { id: 's1' }, body: { name: '' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', field: 'name', params: { minimum: 1 } });
    expect((error as ApiError).parts().map((p) => [p.field, p.params.code])).toEqual([
      ['name', 'too_small'],
      ['blockStatus', 'too_big'],
    ]);
  });

  it('tells of a lost session on a 401 to a signed-in client, unless the 401 is expected', async () => {
    const lost = vi.fn();
    const client = new ApiClient({ onSessionLost: lost });
    client.csrfToken = 'csrf-1';
    answer(401, { error: { code: 'SESSION_EXPIRED', message: 'expired' } });
    await expect(client.call(getSession, {}, { quiet401: true })).rejects.toMatchObject({ code: 'SESSION_EXPIRED' });
    expect(lost).not.toHaveBeenCalled();
    await expect(client.call(deleteSite, { params: { id: 's1' } })).rejects.toMatchObject({ status: 401 });
    expect(lost).toHaveBeenCalledTimes(1);
    expect(lost.mock.calls[0]?.[0]).toMatchObject({ code: 'SESSION_EXPIRED' });
  });

  it('turns a failed connection into the NETWORK error', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(new ApiClient().call(getSetupStatus)).rejects.toMatchObject({ status: 0, code: NETWORK_ERROR });
  });

  it("downloads a file with the engine's file name", async () => {
    const sent = answer(200, 'bytes', { 'content-disposition': 'attachment; filename="rampart-shop.tar.gz"' });
    const file = await new ApiClient().download(downloadSitePlugin, { params: { id: 's1' } });
    expect(sent[0]?.url).toBe('/api/v1/sites/s1/plugin');
    expect(file.fileName).toBe('rampart-shop.tar.gz');
    expect(await file.blob.text()).toBe('"bytes"');
  });

  it('posts the body of a download that takes one (an export), with the CSRF header', async () => {
    const client = new ApiClient();
    client.csrfToken = 'csrf-2';
    const sent = answer(200, 'a,b', { 'content-disposition': 'attachment; filename="access_s1.csv"' });
    const body = { log: 'access:s1', range: { all: true as const }, format: 'csv' as const };
    const file = await client.download(exportLogs, { body });
    expect(sent[0]).toMatchObject({ url: '/api/v1/logs/export', method: 'POST', body: JSON.stringify(body) });
    expect(sent[0]?.headers).toMatchObject({ 'X-CSRF-Token': 'csrf-2', 'Content-Type': 'application/json' });
    expect(file.fileName).toBe('access_s1.csv');
  });
});
