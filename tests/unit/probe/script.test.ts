import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { HEADLESS_UA_PATTERN, SIGN_NAMES, renderProbeScript, type ProbeScriptOptions } from '#engine/probe';
import { SHA256_SOURCE } from '../../../engine/probe/script/sha256.source.ts';

const full: ProbeScriptOptions = {
  reportUrl: '/rampart/report',
  mode: 'page',
  challenge: { challenge: 'A'.repeat(48), difficulty: 8 },
  account: {
    loginPath: '/login',
    usernameSelector: '#user',
    success: { selector: '#msg', text: 'Welcome' },
    failure: { selector: '.error', text: 'Wrong password' },
  },
};

interface Sha256Context {
  rampartSha256Hex(text: string): string;
  rampartSha256Words(bytes: number[]): number[];
  rampartLeadingZeroBits(words: number[]): number;
}

function sha256Context(): Sha256Context {
  const context = {} as Sha256Context;
  runInNewContext(SHA256_SOURCE, context);
  return context;
}

describe('probe script', () => {
  it('parses as ECMAScript 3 in its three modes', () => {
    for (const mode of ['page', 'reload', 'sdk'] as const) {
      expect(() => parse(renderProbeScript({ ...full, mode }), { ecmaVersion: 3 })).not.toThrow();
    }
  });

  it('parses as ECMAScript 3 without challenge and account extraction', () => {
    expect(() => parse(renderProbeScript({ reportUrl: '/r', mode: 'reload' }), { ecmaVersion: 3 })).not.toThrow();
  });

  it('keeps a hostile configuration value inside its string', () => {
    const script = renderProbeScript({ ...full, reportUrl: '"});alert(1);//</script><script>' });
    expect(script).not.toContain('</script>');
    expect(() => parse(script, { ecmaVersion: 3 })).not.toThrow();
  });

  it('names only signs of the catalogue', () => {
    const script = renderProbeScript(full);
    const named = [...script.matchAll(/add\('([a-z_]+)'\)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(15);
    for (const name of named) expect(SIGN_NAMES).toContain(name);
  });

  it('looks for the same headless user agents as the server', () => {
    expect(renderProbeScript(full)).toContain(
      `var HEADLESS_UA = /${HEADLESS_UA_PATTERN.source}/${HEADLESS_UA_PATTERN.flags};`,
    );
  });

  it('ships the SHA-256 the tests evaluate', () => {
    expect(renderProbeScript(full)).toContain(SHA256_SOURCE);
  });
});

describe('probe SHA-256 (ES3)', () => {
  const inputs = [
    '',
    'abc',
    'a'.repeat(55),
    'a'.repeat(56),
    'a'.repeat(64),
    'x'.repeat(1000),
    'héllo wörld 中文 🙂',
    'challenge:12345',
  ];

  it.each(inputs)('equals Node crypto for %j', (input) => {
    expect(sha256Context().rampartSha256Hex(input)).toBe(createHash('sha256').update(input, 'utf8').digest('hex'));
  });

  it('counts leading zero bits like the server', () => {
    const sha = sha256Context();
    for (let counter = 0; counter < 300; counter++) {
      const text = `challenge:${counter}`;
      const digest = createHash('sha256').update(text).digest();
      let bits = 0;
      for (const byte of digest) {
        if (byte === 0) bits += 8;
        else {
          bits += Math.clz32(byte) - 24;
          break;
        }
      }
      const bytes = [...Buffer.from(text)];
      expect(sha.rampartLeadingZeroBits(sha.rampartSha256Words(bytes))).toBe(bits);
    }
  });
});
