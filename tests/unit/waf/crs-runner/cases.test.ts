/**
 * The CRS regression runner builds each stage's request the way the CRS project's own client does
 * (tests/crs/cases.ts): Python ftw for the 3.3.x cases, go-ftw for the 4.x cases.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCases, type BuildOptions } from '../../../crs/cases.ts';
import type { WafRequest } from '#engine/waf';

const dir = mkdtempSync(join(tmpdir(), 'crs-cases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** The request of a one-stage 4.x case whose input is the given YAML lines. */
function built(input: string[], client: BuildOptions['client'] = 'go-ftw'): WafRequest {
  const file = join(dir, `${++n}.yaml`);
  const yaml = ['rule_id: 1', 'tests:', '  - test_id: 1', '    stages:', '      - input:'];
  yaml.push(...input.map((l) => `          ${l}`), '        output:', '          log:', '            expect_ids: [1]');
  writeFileSync(file, yaml.join('\n'));
  const request = readCases(file, '942', { client })[0]?.stages[0]?.request;
  if (request === undefined) throw new Error('no request built');
  return request;
}

const header = (r: WafRequest, name: string): string[] =>
  r.headers.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v);

describe('CRS 4.x cases are sent as go-ftw sends them', () => {
  it('adds a urlencoded Content-Type to data sent without one', () => {
    const r = built(['method: POST', 'data: "var=1234 OR 1=1"']);
    expect(header(r, 'content-type')).toEqual(['application/x-www-form-urlencoded']);
  });

  it('percent-encodes each key and value of data that holds no % or +', () => {
    const r = built(['method: POST', `data: "a=1 OR 'x'='x'&b c=<d>"`]);
    expect(r.body?.toString('latin1')).toBe('a=1+OR+%27x%27%3D%27x%27&b+c=%3Cd%3E');
    expect(header(r, 'content-length')).toEqual([String(r.body?.length)]);
  });

  it('leaves data that already looks encoded as it is', () => {
    const r = built(['method: POST', 'data: "a=%27+OR+1"']);
    expect(r.body?.toString('latin1')).toBe('a=%27+OR+1');
  });

  it('keeps a Content-Type the case gives, whatever its case, and does not encode for it', () => {
    const r = built(['method: POST', 'headers:', '  content-type: application/json', 'data: \'{"a": "b c"}\'']);
    expect(header(r, 'content-type')).toEqual(['application/json']);
    expect(r.body?.toString('latin1')).toBe('{"a": "b c"}');
  });

  it('turns LF into CRLF in a multipart body', () => {
    const r = built([
      'method: POST',
      'headers:',
      '  Content-Type: "multipart/form-data; boundary=x"',
      'data: "--x\\nContent-Disposition: form-data; name=\\"a\\"\\n\\nb\\n--x--\\n"',
    ]);
    expect(r.body?.toString('latin1')).toBe('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n');
  });

  it('sends Content-Length: 0 and Connection: close with a POST that has no data', () => {
    const r = built(['method: POST']);
    expect(header(r, 'content-length')).toEqual(['0']);
    expect(header(r, 'connection')).toEqual(['close']);
    expect(r.body).toBeNull();
  });

  it('adds nothing with autocomplete_headers: false', () => {
    const r = built(['method: POST', 'autocomplete_headers: false', 'headers:', '  Content-Length: 3', 'data: "a=b"']);
    expect(r.headers).toEqual([['Content-Length', '3']]);
    expect(r.body?.toString('latin1')).toBe('a=b');
  });
});

describe('CRS 3.3.x cases are sent as Python ftw sends them', () => {
  it('adds a urlencoded Content-Type but leaves the data and other headers as written', () => {
    const r = built(['method: POST', `data: "a=1 OR 'x'='x'"`], 'ftw');
    expect(header(r, 'content-type')).toEqual(['application/x-www-form-urlencoded']);
    expect(r.body?.toString('latin1')).toBe("a=1 OR 'x'='x'");
    expect(header(r, 'connection')).toEqual([]);
  });
});
