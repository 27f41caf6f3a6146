/**
 * The query box's language, close to Lucene's as Kibana users know it:
 *
 *   src_ip:10.0.0.1 AND NOT status:200        terms joined by AND / OR, NOT or a leading `-`
 *   (status:403 OR status:429) guard_status:OWASP   parentheses; juxtaposed terms mean AND
 *   user_agent:"Mozilla/5.0 (X11)"            quoted values
 *   status:>=500  request_time:[0.5 TO 2]      numeric comparisons and inclusive ranges ({ } exclusive)
 *   account:*   account:*admin*               exists; contains
 *   request:/\/wp-(admin|login)/              a regular expression (checked for linear time)
 *   sqlmap                                    a bare word: the text anywhere in the record
 *
 * A syntax error names its position and what was expected there.
 */
import type { Filter } from '#engine/shared';

export class QuerySyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
    readonly expected: string,
  ) {
    super(message);
  }
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'quoted'; text: string; at: number }
  | { kind: 'regex'; text: string; at: number }
  | { kind: 'op'; text: '(' | ')' | ':' | '-'; at: number }
  | { kind: 'range'; text: string; at: number; lowInclusive: boolean; highInclusive: boolean }
  | { kind: 'end'; at: number };

const MAX_QUERY = 4096;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ':') {
      tokens.push({ kind: 'op', text: c, at: i });
      i++;
      continue;
    }
    if (c === '-' && (i === 0 || /[\s(]/.test(input[i - 1]!))) {
      tokens.push({ kind: 'op', text: '-', at: i });
      i++;
      continue;
    }
    if (c === '"') {
      let text = '';
      let j = i + 1;
      for (; j < input.length && input[j] !== '"'; j++) {
        if (input[j] === '\\' && j + 1 < input.length) j++;
        text += input[j];
      }
      if (j >= input.length) throw new QuerySyntaxError(`unterminated quote at ${i}`, i, '"');
      tokens.push({ kind: 'quoted', text, at: i });
      i = j + 1;
      continue;
    }
    const previous = tokens.at(-1);
    if (c === '/' && previous?.kind === 'op' && previous.text === ':') {
      let text = '';
      let j = i + 1;
      for (; j < input.length && input[j] !== '/'; j++) {
        if (input[j] === '\\' && j + 1 < input.length) {
          // `\/` is a slash inside the pattern; other escapes stay as the regex means them.
          if (input[j + 1] !== '/') text += '\\';
          j++;
        }
        text += input[j];
      }
      if (j >= input.length) throw new QuerySyntaxError(`unterminated regular expression at ${i}`, i, '/');
      tokens.push({ kind: 'regex', text, at: i });
      i = j + 1;
      continue;
    }
    if (c === '[' || c === '{') {
      const close = input.slice(i + 1).search(/[\]}]/);
      if (close < 0) throw new QuerySyntaxError(`unterminated range at ${i}`, i, c === '[' ? ']' : '}');
      const end = i + 1 + close;
      tokens.push({
        kind: 'range',
        text: input.slice(i + 1, end),
        at: i,
        lowInclusive: c === '[',
        highInclusive: input[end] === ']',
      });
      i = end + 1;
      continue;
    }
    let j = i;
    let text = '';
    while (j < input.length && !/[\s():"]/.test(input[j]!)) {
      if (input[j] === '\\' && j + 1 < input.length) j++;
      text += input[j];
      j++;
    }
    tokens.push({ kind: 'word', text, at: i });
    i = j;
  }
  tokens.push({ kind: 'end', at: input.length });
  return tokens;
}

const isKeyword = (t: Token, word: 'AND' | 'OR' | 'NOT'): boolean => t.kind === 'word' && t.text === word;

class Parser {
  #at = 0;
  constructor(private readonly tokens: Token[]) {}

  get #token(): Token {
    return this.tokens[this.#at]!;
  }

  parse(): Filter {
    const filter = this.#or();
    if (this.#token.kind !== 'end') {
      throw new QuerySyntaxError(
        `unexpected "${describe(this.#token)}" at ${this.#token.at}`,
        this.#token.at,
        'AND, OR or the end',
      );
    }
    return filter;
  }

  #or(): Filter {
    const parts = [this.#and()];
    while (isKeyword(this.#token, 'OR')) {
      this.#at++;
      parts.push(this.#and());
    }
    return parts.length === 1 ? parts[0]! : { op: 'or', filters: parts };
  }

  #and(): Filter {
    const parts = [this.#unary()];
    for (;;) {
      const t = this.#token;
      if (isKeyword(t, 'AND')) {
        this.#at++;
        parts.push(this.#unary());
      } else if (t.kind === 'end' || isKeyword(t, 'OR') || (t.kind === 'op' && t.text === ')')) {
        break;
      } else {
        parts.push(this.#unary()); // juxtaposition: AND
      }
    }
    return parts.length === 1 ? parts[0]! : { op: 'and', filters: parts };
  }

  #unary(): Filter {
    const t = this.#token;
    if (isKeyword(t, 'NOT') || (t.kind === 'op' && t.text === '-')) {
      this.#at++;
      return { op: 'not', filter: this.#unary() };
    }
    return this.#primary();
  }

  #primary(): Filter {
    const t = this.#token;
    if (t.kind === 'op' && t.text === '(') {
      this.#at++;
      const inner = this.#or();
      if (!(this.#token.kind === 'op' && this.#token.text === ')')) {
        throw new QuerySyntaxError(`missing ")" at ${this.#token.at}`, this.#token.at, ')');
      }
      this.#at++;
      return inner;
    }
    if (t.kind === 'word' || t.kind === 'quoted') {
      const next = this.tokens[this.#at + 1];
      if (t.kind === 'word' && next?.kind === 'op' && next.text === ':') {
        this.#at += 2;
        return this.#value(t.text, t.at);
      }
      this.#at++;
      return { op: 'text', value: t.text };
    }
    throw new QuerySyntaxError(
      t.kind === 'end' ? `the query ends where a term was expected` : `unexpected "${describe(t)}" at ${t.at}`,
      t.at,
      'a term such as field:value',
    );
  }

  #value(field: string, at: number): Filter {
    if (!/^[A-Za-z_@][\w.@-]*$/.test(field)) {
      throw new QuerySyntaxError(`"${field}" is not a field name`, at, 'a field name');
    }
    const t = this.#token;
    this.#at++;
    switch (t.kind) {
      case 'quoted':
        return { op: 'eq', field, value: t.text };
      case 'regex':
        return { op: 'regex', field, pattern: t.text };
      case 'range':
        return rangeTerm(field, t);
      case 'word':
        return wordTerm(field, t.text, t.at);
      case 'op':
        if (t.text === '(') {
          // field:(a OR b): each value against the field.
          const values: Filter[] = [];
          let joiner: 'and' | 'or' = 'or';
          while (!(this.#token.kind === 'op' && this.#token.text === ')')) {
            const v = this.#token;
            if (v.kind === 'end') throw new QuerySyntaxError(`missing ")" at ${v.at}`, v.at, ')');
            this.#at++;
            if (isKeyword(v, 'OR')) continue;
            if (isKeyword(v, 'AND')) {
              joiner = 'and';
              continue;
            }
            if (v.kind === 'word') values.push(wordTerm(field, v.text, v.at));
            else if (v.kind === 'quoted') values.push({ op: 'eq', field, value: v.text });
            else throw new QuerySyntaxError(`unexpected "${describe(v)}" at ${v.at}`, v.at, 'a value');
          }
          this.#at++;
          if (values.length === 0) throw new QuerySyntaxError(`no value for ${field} at ${t.at}`, t.at, 'a value');
          return values.length === 1 ? values[0]! : { op: joiner, filters: values };
        }
        throw new QuerySyntaxError(`a value for ${field} was expected at ${t.at}`, t.at, 'a value');
      case 'end':
        throw new QuerySyntaxError(`a value for ${field} was expected at ${t.at}`, t.at, 'a value');
    }
  }
}

function describe(t: Token): string {
  return t.kind === 'end' ? 'end' : t.text;
}

function wordTerm(field: string, text: string, at: number): Filter {
  if (text === '*') return { op: 'exists', field };
  const comparison = /^(>=|<=|>|<)(.+)$/.exec(text);
  if (comparison) {
    const n = Number(comparison[2]);
    if (!Number.isFinite(n)) throw new QuerySyntaxError(`"${comparison[2]}" is not a number at ${at}`, at, 'a number');
    const bound = { '>=': 'gte', '<=': 'lte', '>': 'gt', '<': 'lt' }[comparison[1] as '>=' | '<=' | '>' | '<'];
    return { op: 'range', field, [bound]: n };
  }
  if (text.length > 2 && text.startsWith('*') && text.endsWith('*') && !text.slice(1, -1).includes('*')) {
    return { op: 'contains', field, value: text.slice(1, -1) };
  }
  if (text.includes('*')) {
    // A wildcard inside a word: a linear-time regex of the escaped parts.
    const pattern = `^${text
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*')}$`;
    return { op: 'regex', field, pattern };
  }
  return { op: 'eq', field, value: text };
}

function rangeTerm(field: string, t: Extract<Token, { kind: 'range' }>): Filter {
  const m = /^\s*(\S+)\s+TO\s+(\S+)\s*$/.exec(t.text);
  if (!m) throw new QuerySyntaxError(`a range is written [low TO high] at ${t.at}`, t.at, '[low TO high]');
  const bound = (text: string): number | undefined => {
    if (text === '*') return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new QuerySyntaxError(`"${text}" is not a number at ${t.at}`, t.at, 'a number');
    return n;
  };
  const low = bound(m[1]!);
  const high = bound(m[2]!);
  return {
    op: 'range',
    field,
    ...(low === undefined ? {} : t.lowInclusive ? { gte: low } : { gt: low }),
    ...(high === undefined ? {} : t.highInclusive ? { lte: high } : { lt: high }),
  };
}

/** The filter a query-box text means; an empty text means no filter (null). */
export function parseQuery(input: string): Filter | null {
  if (input.length > MAX_QUERY)
    throw new QuerySyntaxError(`the query is longer than ${MAX_QUERY} characters`, MAX_QUERY, 'a shorter query');
  if (input.trim() === '') return null;
  return new Parser(tokenize(input)).parse();
}
