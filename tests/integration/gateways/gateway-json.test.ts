import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

// The gateway API reads JSON as strictly as the console API: a repeated key could make two readers
// of the same body disagree (the first value for one, the last for another).

let engine: TestEngine;
let siteId: string;
let key: string;

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  const admin = new ApiClient(engine.url);
  await admin.setup('administrator@example.com', 'Kettle#Blue7');
  siteId = (await admin.request<{ id: string }>('POST', '/sites', { name: 'Shop', domain: 'shop.example.com' })).body
    .id;
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global/access-key')).body.accessKey;
});

afterAll(async () => {
  await engine?.dispose();
});

const check = (body: string): Promise<Response> =>
  fetch(`${engine.gatewayUrl}/_rampart/check`, {
    method: 'POST',
    headers: { 'x-rampart-site': siteId, 'x-rampart-key': key, 'content-type': 'application/json' },
    body,
  });

describe('JSON on the gateway API', () => {
  it('a plug-in-less check with a repeated key is refused with 400 naming the key', async () => {
    const res = await check('{"uri":"/","remoteAddr":"192.0.2.1","remoteAddr":"10.0.0.1"}');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; field: string } }).error).toMatchObject({
      code: 'INVALID_JSON',
      field: 'remoteAddr',
    });
  });

  it('the same check without the repeat is answered', async () => {
    const res = await check('{"uri":"/","remoteAddr":"192.0.2.1"}');
    expect(res.status).toBe(200);
  });
});
