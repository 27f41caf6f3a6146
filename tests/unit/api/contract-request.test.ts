import { describe, expect, it } from 'vitest';
import {
  createSite,
  getAccount,
  listAccounts,
  listSites,
  requestFor,
  signOut,
} from '../../../engine/api/contracts/index.ts';

describe('a request built from a contract', () => {
  it('fills in and percent-encodes path parameters', () => {
    expect(requestFor(getAccount, { params: { id: 'a/b c' } })).toEqual({
      method: 'GET',
      url: '/api/v1/accounts/a%2Fb%20c',
      body: undefined,
    });
  });

  it('puts the defined query fields in the query string and leaves the others out', () => {
    expect(requestFor(listAccounts, { query: { enabled: 'true', limit: 20, cursor: undefined } }).url).toBe(
      '/api/v1/accounts?enabled=true&limit=20',
    );
    expect(requestFor(listSites, {}).url).toBe('/api/v1/sites');
  });

  it('sends the body as JSON when the operation takes one, and none when it does not', () => {
    const request = requestFor(createSite, { body: { name: 'Shop', domain: 'shop.example.com' } });
    expect(request).toMatchObject({ method: 'POST', url: '/api/v1/sites' });
    expect(JSON.parse(request.body ?? '')).toEqual({ name: 'Shop', domain: 'shop.example.com' });
    expect(requestFor(signOut, {}).body).toBeUndefined();
  });

  it('is typed by the contract: a missing parameter or an unknown body field does not compile', () => {
    // @ts-expect-error -- getAccount needs params.id
    expect(() => requestFor(getAccount, {})).toThrow(/path parameter id/);
    // @ts-expect-error -- a site has no colour
    expect(requestFor(createSite, { body: { name: 'Shop', colour: 'red' } }).method).toBe('POST');
  });

  it('refuses to build a path with a missing parameter', () => {
    expect(() => requestFor(getAccount, { params: { id: '' } })).toThrow(/path parameter id/);
  });
});
