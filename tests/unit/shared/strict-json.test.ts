import { describe, expect, it } from 'vitest';
import { parseJsonStrict, RampartError } from '#engine/shared';

function refusal(text: string, options?: Parameters<typeof parseJsonStrict>[1]): RampartError {
  try {
    parseJsonStrict(text, options);
  } catch (error) {
    if (error instanceof RampartError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('parseJsonStrict', () => {
  it('parses what JSON.parse parses when no key repeats', () => {
    const text = '{"a":[1,2,{"b":"x\\"y","c":null}],"d":{"e":true},"f":"{\\"a\\":1,\\"a\\":2}"}';
    expect(parseJsonStrict(text)).toEqual(JSON.parse(text));
    expect(parseJsonStrict(' [ "a" , "a" ] ')).toEqual(['a', 'a']);
    expect(parseJsonStrict('"plain"')).toBe('plain');
  });

  it('refuses a repeated key, naming it', () => {
    const error = refusal('{"role":"guest","role":"administrator"}');
    expect(error.code).toBe('INVALID_JSON');
    expect(error.field).toBe('role');
    expect(error.message).toContain('role');
  });

  it('refuses a repeated key at any depth, naming its path', () => {
    expect(refusal('{"sourceIp":{"mode":"xff","mode":"default"}}').field).toBe('sourceIp.mode');
    expect(refusal('{"conditions":[{"a":1},{"name":"x","name":"y"}]}').field).toBe('conditions.1.name');
  });

  it('compares keys by their decoded value', () => {
    expect(refusal('{"role":"guest","r\\u006fle":"administrator"}').field).toBe('role');
  });

  it('lets the same key appear in sibling objects', () => {
    expect(parseJsonStrict('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseJsonStrict('{"x":{"a":1},"y":{"a":2}}')).toEqual({ x: { a: 1 }, y: { a: 2 } });
  });

  it('refuses nesting deeper than the limit', () => {
    expect(refusal('['.repeat(65) + ']'.repeat(65)).message).toContain('64');
    expect(parseJsonStrict('['.repeat(64) + ']'.repeat(64))).toBeInstanceOf(Array);
    expect(refusal('{"a":{"b":{}}}', { maxDepth: 2 }).code).toBe('INVALID_JSON');
  });

  it('refuses prototype keys', () => {
    expect(refusal('{"a":{"__proto__":{"admin":true}}}').field).toBe('a.__proto__');
    expect(refusal('{"constructor":{"prototype":{"admin":true}}}').field).toBe('constructor.prototype');
  });

  it('refuses text that is not JSON, naming the input', () => {
    for (const text of ['', '{', '{"a":1,}', '{"a" 1}', '"open', "{'a':1}"]) {
      const error = refusal(text, { name: 'payload' });
      expect(error.code).toBe('INVALID_JSON');
      expect(error.field).toBe('payload');
    }
  });

  it('takes linear time on many keys and long strings', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',');
    const started = performance.now();
    parseJsonStrict(`{${keys},"s":"${'\\\\'.repeat(200_000)}"}`);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
