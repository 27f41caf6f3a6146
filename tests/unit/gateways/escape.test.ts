import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jsonText, lineComment, markdownText, nginxString, shellWord, visibleText } from '#engine/gateways';

/** Strings that break out of a line, a quote, a word or a format, or hide what they say. */
const HOSTILE = [
  'x\nlocation ^~ /open { return 200 "injected"; }\n#',
  'carriage\rreturn',
  'nul\u0000byte',
  'quote " and \\ backslash',
  '$variable ${other} `backtick` $(command)',
  'semi; {brace} }',
  'bidi \u202Egnp.exe',
  'lone \ud800 high and \udc00 low',
  'separator\u2028line\u2029paragraph',
  "single ' quote",
  '<script>alert(1)</script> [link](javascript:x) # *em*',
];

/** No character a reader would not see, and nothing that starts a new line. */
// eslint-disable-next-line no-control-regex -- control characters are what the escapers remove
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]|[\ud800-\udfff]/u;

describe('escaping text for generated files', () => {
  it('visibleText keeps every string on one visible line and can be read back', () => {
    for (const text of HOSTILE) {
      const out = visibleText(text);
      expect(out, text).not.toMatch(INVISIBLE);
      const back = out.replace(/\\u\{([0-9A-F]+)\}|\\\\/g, (m, hex: string | undefined) =>
        hex ? String.fromCodePoint(parseInt(hex, 16)) : '\\',
      );
      expect(back).toBe(text);
    }
  });

  it('lineComment never ends the comment line (nginx and sh end comments at LF only)', () => {
    for (const text of HOSTILE) {
      const out = lineComment(text);
      // eslint-disable-next-line no-control-regex -- NUL must not reach the file
      expect(out).not.toMatch(/[\n\r\u2028\u2029\u0000]/);
      expect(out).not.toMatch(INVISIBLE);
    }
    expect(lineComment('x\nlocation ^~ /open { return 200 "injected"; }\n#')).toBe(
      'x\\u{A}location ^~ /open { return 200 "injected"; }\\u{A}#',
    );
  });

  it('nginxString quotes " and \\, and refuses $ and control characters, which nginx cannot escape', () => {
    expect(nginxString('a"b\\c;{}`\'', 'f')).toBe('"a\\"b\\\\c;{}`\'"');
    for (const text of ['$x', 'a\nb', 'nul\u0000', 'bidi\u202E', 'lone\ud800'])
      expect(() => nginxString(text, 'name'), text).toThrow(/name:/);
  });

  it('shellWord is one word that sh gives back as written (unsafe characters visible)', () => {
    for (const text of HOSTILE) {
      const out = execFileSync('sh', ['-c', `printf %s ${shellWord(text)}`]).toString('utf8');
      expect(out, text).toBe(visibleText(text).replace(/[\ud800-\udfff]/g, '\ufffd'));
    }
    const plain = `it's "$HOME" \`id\` $(id) ; { } \\`;
    expect(execFileSync('sh', ['-c', `printf %s ${shellWord(plain)}`]).toString('utf8')).toBe(
      plain.replace(/\\/g, '\\\\'),
    );
  });

  it('jsonText is ASCII on one line per value and parses back to the same value', () => {
    for (const text of HOSTILE) {
      const out = jsonText({ name: text }, 2);
      expect(out).toMatch(/^[\x20-\x7e\n]*$/);
      expect(out.split('\n')).toHaveLength(3);
      expect((JSON.parse(out) as { name: string }).name).toBe(text);
    }
  });

  it('markdownText opens no heading, HTML, link, code span or emphasis and stays on one line', () => {
    for (const text of HOSTILE) {
      const out = markdownText(text);
      expect(out).not.toMatch(INVISIBLE);
      // every ASCII punctuation character is escaped by the backslash before it
      expect(out.replace(/\\[!-/:-@[-`{-~]/g, '')).not.toMatch(/[!-/:-@[-`{-~]/);
    }
    expect(markdownText('# <b>x</b>')).toBe('\\# \\<b\\>x\\<\\/b\\>');
  });
});
