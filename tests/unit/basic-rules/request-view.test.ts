import { describe, expect, it } from 'vitest';
import { clientHeaders } from '../../../engine/basic-rules/request-view.ts';
import { cookieValue, type RequestFacts } from '#engine/verdict';

// What the rules read of a request's headers: Rampart's own verified token cookie is left out, and
// only the very pair the pipeline verified.

const facts = (headers: RequestFacts['headers']): RequestFacts =>
  ({ method: 'GET', uri: '/', protocol: 'HTTP/1.1', headers, scheme: 'http' }) as unknown as RequestFacts;
const cookieOf = (headers: [string, string][]): string | undefined => headers.find(([name]) => name === 'cookie')?.[1];

describe('the headers the rules read', () => {
  it("leave out the verified token's pair and keep the other cookies", () => {
    const request = facts({ cookie: 'a=1; rampart_token=ab--cd.ef; b=2', 'user-agent': 'x' });
    expect(cookieOf(clientHeaders(request, 'rampart_token'))).toBe('a=1; b=2');
    expect(cookieOf(clientHeaders(request))).toBe('a=1; rampart_token=ab--cd.ef; b=2');
    expect(clientHeaders(request, 'rampart_token')).toContainEqual(['user-agent', 'x']);
  });

  it('drop the Cookie header when the token was its only cookie', () => {
    expect(cookieOf(clientHeaders(facts({ cookie: ' rampart_token=t; ' }), 'rampart_token'))).toBeUndefined();
  });

  it('leave out the pair the pipeline read, never another of the same name', () => {
    // cookieValue reads past a pair without `=`: the verified token is the second one, and the
    // first, which may carry anything, is still read by the rules.
    const cookie = "a; rampart_token=1' OR '1'='1; rampart_token=verified";
    expect(cookieValue(cookie, 'rampart_token')).toBe('verified');
    expect(cookieOf(clientHeaders(facts({ cookie }), 'rampart_token'))).toBe("a; rampart_token=1' OR '1'='1");
    const twice = "rampart_token=verified; rampart_token=1' OR '1'='1";
    expect(cookieOf(clientHeaders(facts({ cookie: twice }), 'rampart_token'))).toBe("rampart_token=1' OR '1'='1");
    // Only the first Cookie header is the pipeline's.
    const headers = clientHeaders(facts({ cookie: ['x=1', 'rampart_token=other'] }), 'rampart_token');
    expect(headers.filter(([name]) => name === 'cookie')).toEqual([
      ['cookie', 'x=1'],
      ['cookie', 'rampart_token=other'],
    ]);
    // A name that only starts like it is another cookie.
    expect(cookieOf(clientHeaders(facts({ cookie: 'rampart_tokenx=1' }), 'rampart_token'))).toBe('rampart_tokenx=1');
  });

  it('trim a long run of separators in linear time', () => {
    const cookie = `rampart_token=t;${' ;'.repeat(100_000)}x=1${'; '.repeat(100_000)}`;
    const started = performance.now();
    expect(cookieOf(clientHeaders(facts({ cookie }), 'rampart_token'))).toBe('x=1');
    expect(performance.now() - started).toBeLessThan(200);
  });
});
