import { describe, expect, it } from 'vitest';
import { TRANSFORMATIONS } from '#engine/waf/transformations';

function t(name: string, input: string): string {
  const fn = TRANSFORMATIONS.get(name.toLowerCase());
  if (!fn) throw new Error(`no transformation ${name}`);
  return fn(input);
}

/** [input, expected output] pairs per transformation, as binary strings. */
const CASES: Record<string, [string, string][]> = {
  lowercase: [
    ['SELECT \xc9', 'select \xc9'],
    ['SELECT \xb5\xaa', 'select \xb5\xaa'],
    ['already lower', 'already lower'],
    ['', ''],
  ],
  uppercase: [
    ['select \xe9', 'SELECT \xe9'],
    ['select \xb5\xdf\xff', 'SELECT \xb5\xdf\xff'],
    ['select \xaa', 'SELECT \xaa'],
  ],
  urlDecode: [
    ['a%20b+c', 'a b c'],
    ['%41%4a%4A', 'AJJ'],
    ['%zz%4%', '%zz%4%'],
    ['%00x', '\0x'],
    ['%ff', '\xff'],
  ],
  urlDecodeUni: [
    ['%u0041%U0042', 'AB'],
    ['%uFF1C%uff0f', '</'],
    ['%u1234', '\x34'],
    ['%uff00', '\x00'],
    ['%uzzzz%u12', '%uzzzz%u12'],
    ['%3c+%2F', '< /'],
  ],
  htmlEntityDecode: [
    ['&lt;script&gt;', '<script>'],
    ['&#x3c;&#X3E;&#60&#0062;', '<><>'],
    ['&QUOT;&amp;&nbsp;', '"&\xa0'],
    ['&foo; & &# &#x; &', '&foo; & &# &#x; &'],
    ['&#x4142;&#321;', 'BA'],
    ['&#99999999999999999999;', '\xff'],
  ],
  jsDecode: [
    ['\\u0061\\x62\\143', 'abc'],
    ['\\n\\t\\r\\v\\f\\b\\a', '\n\t\r\v\f\b\x07'],
    ['\\\'\\"\\\\\\q', '\'"\\q'],
    ['\\uff1c\\uFF0F', '</'],
    ['\\477', '\x27' + '7'],
    ['\\u12', 'u12'],
    ['end\\', 'end\\'],
  ],
  cssDecode: [
    ['j\\61 vascript\\:', 'javascript:'],
    ['\\ff1c\\00ff1c', '<<'],
    ['\\0000ff1c', '\xff1c'],
    ['a\\\nb', 'ab'],
    ['\\123456x', 'Vx'],
    ['trailing\\', 'trailing'],
    ['\\e9', '\xe9'],
  ],
  cmdLine: [
    ['C^O"M"M;A,N\\D  /c (Foo)', 'comm a nd/c(foo)'],
    ['w\'h\'o"a"mi', 'whoami'],
    ['cat\t\n/etc/passwd', 'cat/etc/passwd'],
    ['nothing to do here', 'nothing to do here'],
    ['a  b', 'a b'],
    ['a /b (c', 'a/b(c'],
    ['a\x0bb', 'a\x0bb'],
    ['\u0141x', 'Ax'],
  ],
  compressWhitespace: [
    ['a \t\r\n b\xa0\xa0c', 'a b c'],
    ['a b', 'a b'],
    ['  a  ', ' a '],
  ],
  removeWhitespace: [['un ion\t\xa0sel\nect\x0b', 'unionselect']],
  removeNulls: [['a\0b\0\0', 'ab']],
  replaceNulls: [['a\0b', 'a b']],
  removeComments: [
    ['1/*x*/UNION<!--y-->SELECT--z', '1UNIONSELECT'],
    ['a#b', 'a'],
    ['a/*open', 'a '],
  ],
  removeCommentsChar: [['1/*x*/2--3#4<!--5-->', '1x2345']],
  replaceComments: [
    ['UNION/**/SELECT/*x', 'UNION SELECT '],
    ['a*/b', 'a*/b'],
  ],
  normalizePath: [
    ['/a//b/./c/../d', '/a/b/d'],
    ['../../etc/passwd', '../../etc/passwd'],
    ['/../../etc/passwd', '/etc/passwd'],
    ['/a/b/', '/a/b/'],
    ['/a/b/..', '/a'],
    ['./x', 'x'],
    ['a/../../b', '../b'],
    ['/', '/'],
    ['', ''],
  ],
  normalisePath: [['/a/./b', '/a/b']],
  normalizePathWin: [
    ['C:\\a\\..\\windows\\.\\win.ini', 'C:/windows/win.ini'],
    ['\\\\x\\y', '/x/y'],
  ],
  utf8toUnicode: [
    ['a\xc3\xa9\xe2\x82\xac', 'a%u00e9%u20ac'],
    ['\xf0\x9f\x98\x80', '%u1f600'],
    ['\xc0\xaf', '%u002f\xc0'],
    ['\xc3A', 'A'],
    ['\x80', '\x80'],
    ['plain', 'plain'],
  ],
  base64Decode: [
    ['Zm9vYmFy', 'foobar'],
    ['Zm9v\r\nYmFy=ignored', 'foobar'],
    ['Zm9vYg', 'foob'],
    ['Zm9.vYg', 'fo'],
  ],
  base64DecodeExt: [['Zm9v.YmFy==', 'foobar']],
  base64Encode: [['foob', 'Zm9vYg==']],
  hexEncode: [['a\n\xff', '610aff']],
  hexDecode: [
    ['414243', 'ABC'],
    ['41424', 'AB'],
  ],
  sqlHexDecode: [
    ['SELECT 0x414243 FROM', 'SELECT ABC FROM'],
    ['0x4', '0x4'],
    ['0X41424', 'AB4'],
  ],
  escapeSeqDecode: [
    ['\\x41\\102\\n\\q', 'AB\nq'],
    ['\\\\\\?\\\'\\"', '\\?\'"'],
    ['\\777', '\xff'],
    ['\\x4', 'x4'],
  ],
  length: [
    ['abc', '3'],
    ['', '0'],
  ],
  trim: [[' \t a b \n', 'a b']],
  trimLeft: [[' \t a ', 'a ']],
  trimRight: [[' a \r\n', ' a']],
};

describe('transformations (ModSecurity byte semantics)', () => {
  for (const [name, cases] of Object.entries(CASES)) {
    it(`${name} decodes like ModSecurity`, () => {
      for (const [input, expected] of cases) expect(t(name, input), JSON.stringify(input)).toBe(expected);
    });
  }

  it('builds long results like short ones (past the fast path for short strings)', () => {
    const tail = 'x'.repeat(3000);
    expect(t('normalizePath', `/a/./b/${tail}`)).toBe(`/a/b/${tail}`);
    expect(t('cmdLine', `A;B${tail}`)).toBe(`a b${tail}`);
  });

  it('sha1 and md5 give raw digest bytes', () => {
    expect(Buffer.from(t('sha1', 'abc'), 'latin1').toString('hex')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(Buffer.from(t('md5', 'abc'), 'latin1').toString('hex')).toBe('900150983cd24fb0d6963f7d28e17f72');
  });

  it('holds every transformation CRS 3.3.4 and v4 use, except none (the engine resets the list)', () => {
    for (const name of [
      'base64decode',
      'cmdline',
      'compresswhitespace',
      'cssdecode',
      'escapeseqdecode',
      'hexencode',
      'htmlentitydecode',
      'jsdecode',
      'length',
      'lowercase',
      'normalisepath',
      'normalizepath',
      'normalizepathwin',
      'removecommentschar',
      'removenulls',
      'removewhitespace',
      'replacecomments',
      'sha1',
      'urldecode',
      'urldecodeuni',
      'utf8tounicode',
    ]) {
      expect(TRANSFORMATIONS.has(name), name).toBe(true);
    }
    expect(TRANSFORMATIONS.has('none')).toBe(false);
  });

  it('every transformation is total and stays within bytes on arbitrary input', () => {
    let input = '';
    for (let k = 0; k < 2048; k++) input += String.fromCharCode((k * 7919 + (k >> 3)) & 0xff);
    input += '%u%\\&#x&\\u\\x/*<!--';
    for (const [name, fn] of TRANSFORMATIONS) {
      const out = fn(input);
      expect(
        [...out].every((ch) => ch.charCodeAt(0) <= 0xff),
        name,
      ).toBe(true);
    }
  });

  it('decoders run in linear time on adversarial input', () => {
    const big = '%u'.repeat(100_000) + '&#'.repeat(100_000) + '\\'.repeat(100_000) + '/..'.repeat(100_000);
    const start = performance.now();
    for (const fn of TRANSFORMATIONS.values()) fn(big);
    expect(performance.now() - start).toBeLessThan(3000);
  });
});
