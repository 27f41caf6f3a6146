import { describe, expect, it } from 'vitest';
import {
  LearnedNormal,
  MAX_PARAMS,
  MAX_PATHS,
  MIN_CLIENTS,
  MIN_SAMPLES,
  pathKey,
  requestParams,
  shapeOf,
  shapeWords,
} from '../../../engine/basic-rules/learned-normal.ts';
import type { RequestFacts } from '#engine/verdict';

const facts = (uri: string, body?: string, contentType = 'application/x-www-form-urlencoded'): RequestFacts => ({
  method: body === undefined ? 'GET' : 'POST',
  scheme: 'https',
  host: 'shop.example',
  uri,
  protocol: 'HTTP/1.1',
  remoteAddr: '127.0.0.1',
  headers: body === undefined ? {} : { 'content-type': contentType },
  requestId: 'r',
  ...(body === undefined ? {} : { body: Buffer.from(body) }),
});

/** `count` requests from MIN_CLIENTS addresses, each with a value from `values`, in turn. */
function teach(normal: LearnedNormal, uri: (value: string) => string, values: string[], count = MIN_SAMPLES): void {
  for (let i = 0; i < count; i++)
    normal.learn('s1', facts(uri(values[i % values.length]!)), `10.0.0.${i % MIN_CLIENTS}`);
}

describe('value shapes', () => {
  it('names the character classes a value holds', () => {
    expect(shapeWords(shapeOf('ping pong table'))).toBe('letters, spaces');
    expect(shapeWords(shapeOf("1' OR 1=1 -- "))).toBe('letters, digits, spaces, quotes, operators, punctuation');
    expect(shapeWords(shapeOf('<b>é</b>'))).toBe('letters, angle brackets, slashes, non-ASCII');
    expect(shapeWords(shapeOf('a\u0000(b)'))).toBe('letters, brackets, control characters');
    expect(shapeWords(shapeOf(''))).toBe('empty');
  });

  it('generalises identifiers in paths', () => {
    expect(pathKey('/item/1234/reviews')).toBe('/item/*/reviews');
    expect(pathKey('/u/3f2a9c1e-0b7d-4c1e-9f00-1a2b3c4d5e6f')).toBe('/u/*');
    expect(pathKey('/blob/0123456789abcdef0123')).toBe('/blob/*');
    expect(pathKey('/search')).toBe('/search');
  });

  it('reads query and form pairs, decoding what it can', () => {
    expect(requestParams(facts('/p?q=ping+pong&x=%3Cb%3E&bad=%E0%A4%A&flag&=v&&'))).toEqual([
      ['q', 'ping pong'],
      ['x', '<b>'],
      ['bad', '%E0%A4%A'],
      ['flag', ''],
    ]);
  });
});

describe('the learned normal', () => {
  it('does not speak before it has seen enough values from enough clients', () => {
    const normal = new LearnedNormal();
    teach(normal, (v) => `/search?q=${v}`, ['shoes'], MIN_SAMPLES - 1);
    expect(normal.judge('s1', '/search', 'ARGS:q', 'boots')).toBeNull();
    teach(normal, (v) => `/search?q=${v}`, ['shoes'], 1);
    expect(normal.judge('s1', '/search', 'ARGS:q', 'boots')?.fit).toBe('usual');

    const oneClient = new LearnedNormal();
    for (let i = 0; i < MIN_SAMPLES * 2; i++) oneClient.learn('s1', facts('/search?q=shoes'), '10.0.0.9');
    expect(oneClient.judge('s1', '/search', 'ARGS:q', 'boots')).toBeNull();
  });

  it('calls a value usual when its classes and length are those the parameter usually carries', () => {
    const normal = new LearnedNormal();
    teach(normal, (v) => `/search?q=${encodeURIComponent(v)}`, ['red shoes', 'size 42 boots', 'hats']);
    expect(normal.judge('s1', '/search', 'ARGS:q', 'ping pong table')).toEqual({
      fit: 'usual',
      detail: 'ARGS:q on /search: letters, digits, spaces, up to 15 characters as usual (50 requests)',
    });
    expect(normal.judge('s1', '/search', 'ARGS:q', "it's")).toEqual({
      fit: 'unusual',
      detail: 'ARGS:q on /search: quotes not usual there (50 requests)',
    });
    expect(normal.judge('s1', '/search', 'ARGS:q', 'a'.repeat(39))).toMatchObject({ fit: 'unusual' });
    expect(normal.judge('s1', '/search', 'ARGS:q', 'a'.repeat(38))).toMatchObject({ fit: 'usual' });
  });

  it('ignores a class seen in fewer than 1 % of the values', () => {
    const normal = new LearnedNormal();
    // One value in 400 carries a quote: not the parameter's normal.
    teach(normal, (v) => `/p?name=${encodeURIComponent(v)}`, [...Array<string>(399).fill('anna'), "o'neil"], 400);
    expect(normal.judge('s1', '/p', 'ARGS:name', "d'arcy")).toMatchObject({ fit: 'unusual' });
    const common = new LearnedNormal();
    teach(common, (v) => `/p?name=${encodeURIComponent(v)}`, [...Array<string>(9).fill('anna'), "o'neil"], 400);
    expect(common.judge('s1', '/p', 'ARGS:name', "d'arcy")).toMatchObject({ fit: 'usual' });
  });

  it('learns form bodies, per site, per generalised path, and only for parameters', () => {
    const normal = new LearnedNormal();
    for (let i = 0; i < MIN_SAMPLES; i++)
      normal.learn('s1', facts(`/item/${i}/review`, `stars=${i % 5}&text=great+stuff`), `10.0.0.${i % MIN_CLIENTS}`);
    expect(normal.judge('s1', '/item/77/review', 'ARGS_POST:text', 'fine shoes')?.fit).toBe('usual');
    expect(normal.judge('s1', '/item/77/review', 'ARGS:stars', '5; ls')?.fit).toBe('unusual');
    expect(normal.judge('s2', '/item/77/review', 'ARGS:text', 'fine')).toBeNull();
    expect(normal.judge('s1', '/item/77/review', 'REQUEST_HEADERS:user-agent', 'x')).toBeNull();
    expect(normal.judge('s1', '/item/77/review', 'ARGS:other', 'x')).toBeNull();
    // A JSON body is not learned.
    const json = new LearnedNormal();
    for (let i = 0; i < MIN_SAMPLES; i++)
      json.learn('s1', facts('/api', '{"text":"x"}', 'application/json'), `10.0.0.${i % MIN_CLIENTS}`);
    expect(json.judge('s1', '/api', 'ARGS:json.text', 'x')).toBeNull();
    normal.forget('s1');
    expect(normal.judge('s1', '/item/77/review', 'ARGS:text', 'fine')).toBeNull();
  });

  it('keeps within its bounds of paths and parameters', () => {
    const normal = new LearnedNormal();
    for (let p = 0; p < MAX_PATHS + 10; p++)
      for (let i = 0; i < MIN_SAMPLES; i++) normal.learn('s1', facts(`/p${p}?q=x`), `10.0.0.${i % MIN_CLIENTS}`);
    expect(normal.judge('s1', `/p${MAX_PATHS - 1}`, 'ARGS:q', 'y')?.fit).toBe('usual');
    expect(normal.judge('s1', `/p${MAX_PATHS}`, 'ARGS:q', 'y')).toBeNull();
    const wide = Array.from({ length: MAX_PARAMS + 5 }, (_, i) => `a${i}=x`).join('&');
    const params = new LearnedNormal();
    for (let i = 0; i < MIN_SAMPLES; i++) params.learn('s1', facts(`/w?${wide}`), `10.0.0.${i % MIN_CLIENTS}`);
    expect(params.judge('s1', '/w', `ARGS:a${MAX_PARAMS - 1}`, 'y')?.fit).toBe('usual');
    expect(params.judge('s1', '/w', `ARGS:a${MAX_PARAMS}`, 'y')).toBeNull();
  });
});
