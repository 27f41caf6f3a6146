/**
 * JSON request bodies, named like ModSecurity v3's YAJL processor: a top-level object's members
 * are `json.<key>`, nested objects `json.a.b`, array elements `json.a.array_0`; scalars become
 * strings (numbers as written, `true` / `false`, null as an empty value). Malformed JSON is a body
 * error (REQBODY_ERROR). Nesting is bounded so hostile input cannot exhaust the stack.
 */

export interface JsonResult {
  args: [string, string][];
  error?: string;
}

interface Container {
  name: string;
  array: boolean;
  counter: number;
}

const MAX_DEPTH = 256;

class JsonReader {
  private pos = 0;
  private readonly containers: Container[] = [];
  private currentKey = '';
  readonly args: [string, string][] = [];

  constructor(
    private readonly text: string,
    private readonly maxArgs: number,
  ) {}

  parse(): void {
    this.ws();
    this.value(0);
    this.ws();
    if (this.pos < this.text.length) this.fail('trailing garbage');
  }

  private fail(what: string): never {
    throw new Error(`JSON parse error at offset ${this.pos}: ${what}`);
  }

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
  }

  private currentName(): string {
    return this.containers.length === 0 ? 'json' : this.currentKey;
  }

  private add(value: string): void {
    let path = '';
    for (const c of this.containers) {
      path += c.name;
      path += c.array ? `.array_${c.counter}` : '.';
    }
    const last = this.containers[this.containers.length - 1];
    let data = '';
    if (last?.array) last.counter++;
    else data = this.currentName();
    if (this.args.length < this.maxArgs) this.args.push([path + data, value]);
  }

  private closeContainer(): void {
    this.containers.pop();
    const parent = this.containers[this.containers.length - 1];
    if (parent?.array) parent.counter++;
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    const t = this.text;
    const c = t[this.pos];
    if (c === '{') {
      this.pos++;
      this.containers.push({ name: this.currentName(), array: false, counter: 0 });
      this.ws();
      if (t[this.pos] === '}') {
        this.pos++;
        this.closeContainer();
        return;
      }
      for (;;) {
        this.ws();
        if (t[this.pos] !== '"') this.fail('expected key');
        this.currentKey = this.string();
        this.ws();
        if (t[this.pos] !== ':') this.fail("expected ':'");
        this.pos++;
        this.ws();
        this.value(depth + 1);
        this.ws();
        if (t[this.pos] === ',') {
          this.pos++;
          continue;
        }
        if (t[this.pos] === '}') {
          this.pos++;
          this.closeContainer();
          return;
        }
        this.fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      this.pos++;
      this.containers.push({ name: this.currentName(), array: true, counter: 0 });
      this.ws();
      if (t[this.pos] === ']') {
        this.pos++;
        this.closeContainer();
        return;
      }
      for (;;) {
        this.ws();
        this.value(depth + 1);
        this.ws();
        if (t[this.pos] === ',') {
          this.pos++;
          continue;
        }
        if (t[this.pos] === ']') {
          this.pos++;
          this.closeContainer();
          return;
        }
        this.fail("expected ',' or ']'");
      }
    }
    if (c === '"') {
      this.add(this.string());
      return;
    }
    if (t.startsWith('true', this.pos)) {
      this.pos += 4;
      this.add('true');
      return;
    }
    if (t.startsWith('false', this.pos)) {
      this.pos += 5;
      this.add('false');
      return;
    }
    if (t.startsWith('null', this.pos)) {
      this.pos += 4;
      this.add('');
      return;
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.pos;
    const r = m.exec(t);
    if (r && r[0].length > 0 && r[0] !== '-') {
      this.pos += r[0].length;
      this.add(r[0]);
      return;
    }
    this.fail('unexpected character');
  }

  /** Reads a string token; the value stays a binary string (\u escapes become UTF-8 bytes). */
  private string(): string {
    const t = this.text;
    this.pos++;
    let out = '';
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail('unterminated string');
      const c = t.charCodeAt(this.pos);
      if (c === 34) {
        out += t.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c === 92) {
        out += t.slice(runStart, this.pos);
        const e = t[this.pos + 1];
        this.pos += 2;
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out += e;
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = t.slice(this.pos, this.pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
            this.pos += 4;
            out += Buffer.from(String.fromCharCode(parseInt(hex, 16)), 'utf8').toString('latin1');
            break;
          }
          default:
            this.fail('bad escape');
        }
        runStart = this.pos;
        continue;
      }
      this.pos++;
    }
  }
}

export function parseJson(body: string, maxArgs = 10_000): JsonResult {
  const reader = new JsonReader(body, maxArgs);
  try {
    reader.parse();
    return { args: reader.args };
  } catch (e) {
    return { args: reader.args, error: (e as Error).message };
  }
}
