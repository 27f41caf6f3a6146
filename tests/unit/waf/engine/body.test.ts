/**
 * Body processors on their own: defined results for good and bad input, never an exception.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, parseMultipart, parseUrlencoded, parseXml } from '#engine/waf/engine';

describe('urlencoded', () => {
  it('splits pairs and decodes + and %XX', () => {
    expect(parseUrlencoded('a=1+2&b=%41').pairs).toEqual([
      ['a', '1 2'],
      ['b', 'A'],
    ]);
  });
  it('keeps a name without = with an empty value', () => {
    expect(parseUrlencoded('flag').pairs).toEqual([['flag', '']]);
  });
  it('keeps a bad escape as written and flags it', () => {
    expect(parseUrlencoded('a=%zz')).toEqual({ pairs: [['a', '%zz']], invalidEncoding: true });
  });
  it('keeps null bytes as bytes', () => {
    expect(parseUrlencoded('a=%00x').pairs).toEqual([['a', '\u0000x']]);
  });
  it('stops at the arguments limit', () => {
    expect(parseUrlencoded('a=1&'.repeat(100_000), '&', 1000).pairs.length).toBe(1000);
  });
});

describe('json', () => {
  it('names nested members json.a.b', () => {
    expect(parseJson('{"a":{"b":"x"}}').args).toEqual([['json.a.b', 'x']]);
  });
  it('names array elements json.a.array_N', () => {
    expect(parseJson('{"a":[1,true,null]}').args).toEqual([
      ['json.a.array_0', '1'],
      ['json.a.array_1', 'true'],
      ['json.a.array_2', ''],
    ]);
  });
  it('turns \\u escapes into UTF-8 bytes', () => {
    expect(parseJson('{"a":"\\u00e9"}').args).toEqual([['json.a', '\u00c3\u00a9']]);
  });
  it('reports malformed JSON as an error', () => {
    expect(parseJson('{"a":}').error).toMatch(/JSON parse error/);
  });
  it('bounds nesting depth', () => {
    expect(parseJson('['.repeat(100_000)).error).toMatch(/too deep/);
  });
});

describe('xml', () => {
  it('collects the text content', () => {
    expect(parseXml('<?xml version="1.0"?><a>x<b>y</b><![CDATA[z]]></a>').text).toBe('xyz');
  });
  it('collects attribute values', () => {
    expect(parseXml('<a k="v"><b j=\'w\'/></a>').attributes).toEqual(['v', 'w']);
  });
  it('skips a DOCTYPE with an internal subset', () => {
    expect(parseXml('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>').error).toBeUndefined();
  });
  it('rejects mismatched tags', () => {
    expect(parseXml('<a><b></a></b>').error).toMatch(/mismatched/);
  });
  it('rejects a second root', () => {
    expect(parseXml('<a/><b/>').error).toMatch(/extra content/);
  });
  it('rejects an unterminated document', () => {
    expect(parseXml('<a>').error).toMatch(/premature end/);
  });
});

describe('multipart', () => {
  const ct = 'multipart/form-data; boundary=XX';
  it('reads fields and files', () => {
    const r = parseMultipart(
      '--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XX\r\nContent-Disposition: form-data; name="f"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--XX--\r\n',
      ct,
    );
    expect([r.args, r.files.map((f) => [f.name, f.filename, f.content]), r.error]).toEqual([
      [['a', '1']],
      [['f', 'x.txt', 'hi']],
      undefined,
    ]);
  });
  it('flags LF-only lines', () => {
    expect(parseMultipart('--XX\nContent-Disposition: form-data; name="a"\n\n1\n--XX--\n', ct).flags.lfLine).toBe(true);
  });
  it('flags a quoted boundary', () => {
    expect(
      parseMultipart(
        '--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XX--\r\n',
        'multipart/form-data; boundary="XX"',
      ).flags.boundaryQuoted,
    ).toBe(true);
  });
  it('flags data before the first boundary', () => {
    expect(
      parseMultipart('junk\r\n--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XX--\r\n', ct).flags
        .dataBefore,
    ).toBe(true);
  });
  it('reports a missing boundary parameter as an error', () => {
    expect(parseMultipart('x', 'multipart/form-data').error).toMatch(/Boundary not found/);
  });
  it('reports a part without Content-Disposition as an error', () => {
    expect(parseMultipart('--XX\r\nContent-Type: text/plain\r\n\r\n1\r\n--XX--\r\n', ct).error).toMatch(
      /Content-Disposition/,
    );
  });
  it('flags a missing semicolon before the boundary', () => {
    expect(
      parseMultipart(
        '--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XX--\r\n',
        'multipart/form-data boundary=XX',
      ).flags.missingSemicolon,
    ).toBe(true);
  });
});
