/**
 * CRS regression cases (legacy 3.3.x format and the 4.x go-ftw format) read from YAML and turned
 * into WafRequests the way the CRS runners send them: headers as given, `data` lines joined with
 * CRLF, Content-Length added for a body, `encoded_request` / `raw_request` parsed as raw HTTP.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { WafRequest } from '#engine/waf';

export interface StageExpect {
  /** Regexes that must / must not match the compatibility log. */
  logContains: RegExp[];
  noLogContains: RegExp[];
  expectIds: string[];
  noExpectIds: string[];
  status: number[] | undefined;
  expectError: boolean;
}

export interface Stage {
  request: WafRequest | undefined;
  /** The bytes of `encoded_request` / `raw_request`, sent as they are by the HTTP-level runner. */
  raw?: Buffer;
  /** Why the request could not be built (bad raw request). */
  buildError?: string;
  expect: StageExpect;
}

export interface RegressionCase {
  /** `942100-1` (3.3.x) or `942100-1` from rule_id and test_id (4.x). */
  id: string;
  group: string;
  file: string;
  stages: Stage[];
}

type Yaml = Record<string, unknown>;

const asObj = (v: unknown): Yaml => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Yaml) : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
/** YAML text is Unicode; the runners send it as UTF-8 bytes. The engine wants binary strings. */
const bin = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

function parseRaw(raw: Buffer, dest: { addr: string; port: number }): WafRequest {
  const text = raw.toString('latin1');
  let sep = text.indexOf('\r\n\r\n');
  let sepLen = 4;
  if (sep < 0) {
    sep = text.indexOf('\n\n');
    sepLen = 2;
  }
  const head = sep < 0 ? text : text.slice(0, sep);
  const body = sep < 0 ? '' : text.slice(sep + sepLen);
  const lines = head.split(/\r?\n/);
  const first = (lines.shift() ?? '').split(' ');
  if (first.length < 2) throw new Error('bad request line in raw request');
  const headers: [string, string][] = [];
  for (const l of lines) {
    const c = l.indexOf(':');
    if (c <= 0) continue;
    headers.push([l.slice(0, c), l.slice(c + 1).trim()]);
  }
  return {
    method: first[0] ?? 'GET',
    uri: first[1] ?? '/',
    protocol: first[2] ?? 'HTTP/1.1',
    headers,
    body: body === '' ? null : Buffer.from(body, 'latin1'),
    remoteAddr: '127.0.0.1',
    remotePort: 50000,
    serverAddr: dest.addr,
    serverPort: dest.port,
  };
}

export interface BuildOptions {
  /**
   * Which CRS test client's request building to follow for `data` without `autocomplete_headers:
   * false` / `stop_magic: true`:
   * - `ftw`: Python ftw (the 3.3.x suite), which adds a urlencoded Content-Type when none is given;
   * - `go-ftw`: go-ftw (the 4.x suite, `ftwhttp/request.go`), which also adds that Content-Type,
   *   percent-encodes each `key=value` pair of urlencoded data that holds no `%` or `+`, turns LF
   *   into CRLF in multipart bodies, and adds `Connection: close` and a Content-Length (0 too) to
   *   every POST, PUT, PATCH or DELETE.
   */
  client: 'ftw' | 'go-ftw';
}

/** `encoded_request` (base64) or `raw_request` (text) as bytes; undefined when the stage has neither. */
function rawBytes(input: Yaml): Buffer | undefined {
  const encoded = str(input.encoded_request);
  if (encoded !== undefined) return Buffer.from(encoded, 'base64');
  const raw = str(input.raw_request);
  return raw === undefined ? undefined : Buffer.from(raw, 'utf8');
}

/** Go's url.QueryEscape on UTF-8 bytes: unreserved bytes stay, space becomes `+`, the rest `%XX`. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (b === 0x20) out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * go-ftw's encodeDataParameters: urlencoded data that url-decoding would leave unchanged (no `%`,
 * no `+`) is taken as not yet encoded, and each `&`-separated `key=value` has key and value encoded.
 */
function goFtwEncode(data: string): string {
  if (data.includes('%') || data.includes('+')) return data;
  return data
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? queryEscape(pair) : `${queryEscape(pair.slice(0, eq))}=${queryEscape(pair.slice(eq + 1))}`;
    })
    .join('&');
}

function buildRequest(input: Yaml, opts: BuildOptions): WafRequest {
  const dest = { addr: str(input.dest_addr) ?? '127.0.0.1', port: Number(input.port ?? 80) };
  const raw = rawBytes(input);
  if (raw !== undefined) return parseRaw(raw, dest);
  const headers: [string, string][] = Object.entries(asObj(input.headers)).map(([k, v]) => [k, bin(str(v) ?? '')]);
  const rawData = input.data;
  let data: string | undefined;
  if (Array.isArray(rawData)) data = rawData.map((l) => str(l) ?? '').join('\r\n');
  else data = str(rawData);
  const method = str(input.method) ?? 'GET';
  // stop_magic (3.x) / autocomplete_headers: false (4.x): the runner adds no header; without
  // Content-Length / Transfer-Encoding the server reads no body.
  const magic = input.stop_magic !== true && input.autocomplete_headers !== false;
  const header = (n: string): string | undefined => headers.find(([k]) => k.toLowerCase() === n)?.[1];
  const has = (n: string): boolean => header(n) !== undefined;
  if (magic && data !== undefined && data !== '' && opts.client === 'go-ftw') {
    if (!has('content-type')) headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
    if (header('content-type') === 'application/x-www-form-urlencoded') data = goFtwEncode(data);
    else if (header('content-type')?.startsWith('multipart/form-data;')) data = data.replace(/\n/g, '\r\n');
  }
  let body: Buffer | null = null;
  if (data !== undefined && data !== '' && (magic || has('content-length') || has('transfer-encoding'))) {
    body = Buffer.from(data, 'utf8');
    if (magic && !has('content-length') && !has('transfer-encoding'))
      headers.push(['Content-Length', String(body.length)]);
    if (magic && opts.client === 'ftw' && !has('content-type'))
      headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
  }
  if (magic && opts.client === 'go-ftw') {
    if (!has('connection')) headers.push(['Connection', 'close']);
    // go-ftw's methodsWithBodyRegex, `^POST|PUT|PATCH|DELETE$`, unanchored in the middle as written.
    if (body === null && /^POST|PUT|PATCH|DELETE$/.test(method) && !has('content-length'))
      headers.push(['Content-Length', '0']);
  }
  return {
    method: bin(method),
    uri: bin(str(input.uri) ?? '/'),
    protocol: str(input.version) ?? 'HTTP/1.1',
    headers,
    body,
    remoteAddr: '127.0.0.1',
    remotePort: 50000,
    serverAddr: dest.addr,
    serverPort: dest.port,
  };
}

function regexes(v: unknown): RegExp[] {
  return asArr(v)
    .map((x) => str(x))
    .filter((x): x is string => x !== undefined && x !== '')
    .map((x) => new RegExp(x));
}

function expectOf(output: Yaml): StageExpect {
  const log = asObj(output.log);
  const status = output.status === undefined ? undefined : asArr(output.status).map(Number);
  return {
    logContains: [...regexes(output.log_contains), ...regexes(log.match_regex)],
    noLogContains: [...regexes(output.no_log_contains), ...regexes(log.no_match_regex)],
    expectIds: asArr(log.expect_ids).map((x) => String(x)),
    noExpectIds: asArr(log.no_expect_ids).map((x) => String(x)),
    status,
    expectError: output.expect_error === true,
  };
}

function stageOf(s: unknown, opts: BuildOptions): Stage {
  const o = asObj(s);
  const st = o.stage !== undefined ? asObj(o.stage) : o;
  const expect = expectOf(asObj(st.output));
  const input = asObj(st.input);
  const raw = rawBytes(input);
  try {
    return { request: buildRequest(input, opts), expect, ...(raw ? { raw } : {}) };
  } catch (e) {
    return { request: undefined, buildError: (e as Error).message, expect, ...(raw ? { raw } : {}) };
  }
}

/** Reads one YAML file in either format. */
export function readCases(file: string, group: string, opts: BuildOptions): RegressionCase[] {
  const doc = asObj(parse(readFileSync(file, 'utf8')));
  const ruleId = str(doc.rule_id);
  const out: RegressionCase[] = [];
  for (const t of asArr(doc.tests)) {
    const tt = asObj(t);
    const id = ruleId !== undefined ? `${ruleId}-${str(tt.test_id) ?? '?'}` : (str(tt.test_title) ?? '?');
    out.push({ id, group, file, stages: asArr(tt.stages).map((s) => stageOf(s, opts)) });
  }
  return out;
}

/** Overrides from the CRS project (v4 *-overrides.yaml): rule id + test ids -> replaced output. */
export interface Override {
  ruleId: string;
  testIds: string[];
  reason: string;
  expect: StageExpect;
}

export function readOverrides(file: string): Override[] {
  const doc = asObj(parse(readFileSync(file, 'utf8')));
  return asArr(doc.test_overrides).map((o) => {
    const x = asObj(o);
    return {
      ruleId: str(x.rule_id) ?? '',
      testIds: asArr(x.test_ids).map((t) => String(t)),
      reason: str(x.reason) ?? '',
      expect: expectOf(asObj(x.output)),
    };
  });
}
