/**
 * Reads the CRS regression cases for the libinjection-backed rules and turns each request into the
 * values those rules inspect, transformed the way the rules transform them. Deliberately simple:
 * the real variable extraction and transformations live in the engine; this harness measures the
 * detectors, not the engine. It prefers the engine's transformation table when one exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { crsRegressionTests } from '../../../support/crs-dirs.ts';

export type RuleId = '941100' | '941101' | '942100' | '942101';
export type CrsVersion = 'v3.3.4' | 'v4.28.0';
type Collection =
  | 'ARGS'
  | 'ARGS_NAMES'
  | 'REQUEST_COOKIES'
  | 'REQUEST_COOKIES_NAMES'
  | 'USER_AGENT'
  | 'REFERER'
  | 'REQUEST_FILENAME'
  | 'REQUEST_BASENAME'
  | 'XML';

const COMMON: Collection[] = ['REQUEST_COOKIES', 'REQUEST_COOKIES_NAMES', 'USER_AGENT', 'ARGS_NAMES', 'ARGS', 'XML'];

/** What each rule inspects (rule text of CRS 3.3.4 in /usr/share/modsecurity-crs, and CRS 4). */
export const TARGETS: Record<CrsVersion, Record<RuleId, Collection[]>> = {
  'v3.3.4': {
    '941100': COMMON,
    '941101': ['REFERER'],
    '942100': [...COMMON, 'REFERER'],
    '942101': ['REQUEST_BASENAME'],
  },
  'v4.28.0': {
    '941100': COMMON,
    '941101': ['REQUEST_FILENAME', 'REFERER'],
    '942100': [...COMMON, 'REFERER'],
    '942101': ['REQUEST_BASENAME', 'REQUEST_FILENAME'],
  },
};

export const FILES: Record<RuleId, string> = {
  '941100': 'REQUEST-941-APPLICATION-ATTACK-XSS/941100.yaml',
  '941101': 'REQUEST-941-APPLICATION-ATTACK-XSS/941101.yaml',
  '942100': 'REQUEST-942-APPLICATION-ATTACK-SQLI/942100.yaml',
  '942101': 'REQUEST-942-APPLICATION-ATTACK-SQLI/942101.yaml',
};

export interface CrsCase {
  title: string;
  rule: RuleId;
  expected: boolean;
  /** Values per collection, as binary strings, before the rule's transformations. */
  values: Map<Collection, string[]>;
}

interface StageInput {
  uri?: string;
  data?: string;
  headers?: Record<string, string>;
}
interface StageOutput {
  log_contains?: string;
  no_log_contains?: string;
  log?: { expect_ids?: number[]; no_expect_ids?: number[] };
}

/** UTF-8 text from YAML to the binary string the WAF sees. */
function bytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Query-string / urlencoded-body decoding as a body parser does it: `+` and `%XX`. */
function formDecode(s: string): string {
  return s.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function addPairs(
  values: Map<Collection, string[]>,
  text: string,
  sep: RegExp,
  names: Collection,
  vals: Collection,
  decode: boolean,
): void {
  for (const part of text.split(sep)) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    push(values, names, decode ? formDecode(name) : name.trim());
    push(values, vals, decode ? formDecode(value) : value);
  }
}

function push(values: Map<Collection, string[]>, key: Collection, value: string): void {
  const list = values.get(key);
  if (list) list.push(value);
  else values.set(key, [value]);
}

function xmlDecode(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16) & 0xff))
    .replace(/&#([0-9]+);/g, (_, d: string) => String.fromCharCode(parseInt(d, 10) & 0xff))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function requestValues(input: StageInput): Map<Collection, string[]> {
  const values = new Map<Collection, string[]>();
  const headers = new Map(Object.entries(input.headers ?? {}).map(([k, v]) => [k.toLowerCase(), bytes(String(v))]));
  const uri = bytes(input.uri ?? '/');
  const q = uri.indexOf('?');
  const path = q < 0 ? uri : uri.slice(0, q);
  push(values, 'REQUEST_FILENAME', path);
  push(values, 'REQUEST_BASENAME', path.slice(path.lastIndexOf('/') + 1));
  if (q >= 0) addPairs(values, uri.slice(q + 1), /&/, 'ARGS_NAMES', 'ARGS', true);
  const ua = headers.get('user-agent');
  if (ua !== undefined) push(values, 'USER_AGENT', ua);
  const referer = headers.get('referer');
  if (referer !== undefined) push(values, 'REFERER', referer);
  const cookie = headers.get('cookie');
  if (cookie !== undefined) addPairs(values, cookie, /;\s*/, 'REQUEST_COOKIES_NAMES', 'REQUEST_COOKIES', false);
  if (input.data !== undefined) {
    const body = bytes(String(input.data));
    if (/xml/i.test(headers.get('content-type') ?? '')) {
      for (const m of body.matchAll(/\s[\w:.-]+\s*=\s*"([^"]*)"/g)) push(values, 'XML', xmlDecode(m[1] ?? ''));
      for (const m of body.matchAll(/>([^<]+)</g)) push(values, 'XML', xmlDecode(m[1] ?? ''));
    } else {
      addPairs(values, body, /&/, 'ARGS_NAMES', 'ARGS', true);
    }
  }
  return values;
}

function expectation(output: StageOutput | undefined, rule: RuleId): boolean | undefined {
  if (!output) return undefined;
  const id = Number(rule);
  if (output.log?.expect_ids?.includes(id)) return true;
  if (output.log?.no_expect_ids?.includes(id)) return false;
  if (output.log_contains?.includes(`id "${rule}"`)) return true;
  if (output.no_log_contains?.includes(`id "${rule}"`)) return false;
  return undefined;
}

interface YamlTest {
  test_title?: string;
  test_id?: number;
  stages?: ({ stage?: { input?: StageInput; output?: StageOutput } } & { input?: StageInput; output?: StageOutput })[];
}

/** The cases of one rule; empty when the version's regression cases are absent (see crs-dirs.ts). */
export function loadCases(version: CrsVersion, rule: RuleId): CrsCase[] {
  const dir = crsRegressionTests(version);
  if (dir === null) return [];
  const doc = parse(readFileSync(`${dir}/${FILES[rule]}`, 'utf8')) as { tests?: YamlTest[] };
  const out: CrsCase[] = [];
  for (const test of doc.tests ?? []) {
    const title = test.test_title ?? `${rule}-${test.test_id ?? '?'}`;
    for (const raw of test.stages ?? []) {
      const stage = raw.stage ?? raw;
      const expected = expectation(stage.output, rule);
      if (expected === undefined || !stage.input) continue;
      out.push({ title, rule, expected, values: requestValues(stage.input) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Transformations: the engine's when it has a table, otherwise simple equivalents.
// ---------------------------------------------------------------------------------------------

type Transform = (s: string) => string;

function urlDecodeUni(s: string): string {
  return s
    .replace(/%u([0-9a-fA-F]{4})/g, (_, h: string) => {
      const code = parseInt(h, 16);
      // Full-width ASCII (U+FF01-FF5E) maps to ASCII, as ModSecurity does; otherwise the low byte.
      return String.fromCharCode(code >= 0xff01 && code <= 0xff5e ? code - 0xfee0 : code & 0xff);
    })
    .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\+/g, ' ');
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', quot: '"', amp: '&', apos: "'", nbsp: '\xa0' };
function htmlEntityDecode(s: string): string {
  return s.replace(
    /&(?:#x([0-9a-f]+)|#([0-9]+)|(lt|gt|quot|amp|apos|nbsp));?/gi,
    (m, hex?: string, dec?: string, name?: string) => {
      if (hex) return String.fromCharCode(parseInt(hex, 16) & 0xff);
      if (dec) return String.fromCharCode(parseInt(dec, 10) & 0xff);
      return NAMED[(name ?? '').toLowerCase()] ?? m;
    },
  );
}

function jsDecode(s: string): string {
  return s.replace(
    /\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([0-7]{1,3})|(.))/g,
    (m, u?: string, x?: string, o?: string, c?: string) => {
      if (u) return String.fromCharCode(parseInt(u, 16) & 0xff);
      if (x) return String.fromCharCode(parseInt(x, 16));
      if (o) return String.fromCharCode(parseInt(o, 8) & 0xff);
      const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', a: '\x07' };
      return c === undefined ? m : (map[c] ?? c);
    },
  );
}

function cssDecode(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, h: string) => String.fromCharCode(parseInt(h, 16) & 0xff));
}

const FALLBACK: Record<string, Transform> = {
  none: (s) => s,
  utf8toUnicode: (s) => s,
  urlDecodeUni,
  htmlEntityDecode,
  jsDecode,
  cssDecode,
  removeNulls: (s) => s.replace(/\0/g, ''),
};

/** The engine's transformation table, when `engine/waf/transformations/index.ts` exports one. */
async function engineTable(): Promise<((name: string) => Transform | undefined) | null> {
  const file = resolve('engine/waf/transformations/index.ts');
  if (!existsSync(file)) return null;
  try {
    const mod = (await import(pathToFileURL(file).href)) as { TRANSFORMATIONS?: unknown };
    const table = mod.TRANSFORMATIONS;
    if (table instanceof Map) {
      const m = table as Map<string, Transform>;
      return (name) => m.get(name) ?? m.get(name.toLowerCase());
    }
    if (table && typeof table === 'object') {
      const o = table as Record<string, Transform>;
      return (name) => o[name] ?? o[name.toLowerCase()];
    }
  } catch {
    // A table still being written by another change: measure with the fallbacks.
  }
  return null;
}

export const PIPELINES: Record<'sqli' | 'xss', string[]> = {
  sqli: ['none', 'utf8toUnicode', 'urlDecodeUni', 'removeNulls'],
  xss: ['none', 'utf8toUnicode', 'urlDecodeUni', 'htmlEntityDecode', 'jsDecode', 'cssDecode', 'removeNulls'],
};

export interface Pipelines {
  sqli: Transform;
  xss: Transform;
  /** Which transformations came from the engine's table. */
  fromEngine: string[];
}

export async function loadPipelines(): Promise<Pipelines> {
  const table = await engineTable();
  const fromEngine: string[] = [];
  const build = (names: string[]): Transform => {
    const fns = names.map((name) => {
      const fn = table?.(name);
      if (typeof fn === 'function') {
        fromEngine.push(name);
        return fn;
      }
      return FALLBACK[name] ?? ((s: string) => s);
    });
    return (s) => fns.reduce((acc, fn) => fn(acc), s);
  };
  return { sqli: build(PIPELINES.sqli), xss: build(PIPELINES.xss), fromEngine: [...new Set(fromEngine)] };
}
