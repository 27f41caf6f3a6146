import { RampartError } from './errors.ts';

export interface StrictJsonOptions {
  /** Deepest nesting of objects and arrays accepted (default 64). */
  maxDepth?: number;
  /** What the text is, for messages when no key path applies (default `body`). */
  name?: string;
}

interface Frame {
  /** null for an array. */
  keys: Set<string> | null;
  /** The key whose value is being read (objects) or the index of the current element (arrays). */
  at: string | number;
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function pathOf(stack: readonly Frame[], key: string): string {
  const parts = stack.slice(0, -1).map((f) => String(f.at));
  parts.push(key);
  return parts.join('.');
}

/**
 * JSON.parse with three refusals that plain JSON.parse lacks: a key repeated in one object (the
 * last one would silently win, so `{"role":"guest","role":"administrator"}` means something other
 * than what a reviewer of the text sees), nesting deeper than `maxDepth`, and the keys `__proto__`
 * and `constructor.prototype`. One pass over the text, then JSON.parse: linear time in the text's
 * length. Errors are INVALID_JSON naming the key path (`sourceIp.mode`) or `name`.
 */
export function parseJsonStrict(text: string, options: StrictJsonOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? 64;
  const name = options.name ?? 'body';
  const invalid = (): RampartError => new RampartError('INVALID_JSON', `${name}: is not valid JSON`, { field: name });
  const stack: Frame[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      i++;
      while (i < length) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) {
          escaped = true;
          i += 2;
          continue;
        }
        if (d === QUOTE) break;
        i++;
      }
      if (i >= length) throw invalid();
      i++;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        let key: string;
        try {
          key = escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
        } catch {
          throw invalid();
        }
        const parent = stack[stack.length - 2];
        if (key === '__proto__' || (key === 'prototype' && parent?.keys && parent.at === 'constructor')) {
          const path = pathOf(stack, key);
          throw new RampartError('INVALID_JSON', `${path}: is not an allowed key`, { field: path });
        }
        if (top.keys.has(key)) {
          const path = pathOf(stack, key);
          throw new RampartError('INVALID_JSON', `${path}: appears more than once in the same object`, { field: path });
        }
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        if (stack.length >= maxDepth) {
          throw new RampartError('INVALID_JSON', `${name}: nests deeper than ${maxDepth} levels`, {
            field: name,
            params: { maxDepth },
          });
        }
        stack.push(c === 0x7b ? { keys: new Set(), at: '', expectKey: true } : { keys: null, at: 0, expectKey: false });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      case 0x2c: {
        // ,
        const top = stack[stack.length - 1];
        if (top?.keys) top.expectKey = true;
        else if (top) top.at = (top.at as number) + 1;
        break;
      }
      default:
        break;
    }
    i++;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid();
  }
}

/**
 * `parseJsonStrict` as an HTTP server's JSON body parser (Fastify's `addContentTypeParser` with
 * `parseAs: 'string'`), for both the console API and the gateway API.
 */
export function strictJsonBodyParser(
  _request: unknown,
  text: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
): void {
  try {
    done(null, parseJsonStrict(typeof text === 'string' ? text : text.toString('utf8')));
  } catch (error) {
    done(error as Error, undefined);
  }
}
