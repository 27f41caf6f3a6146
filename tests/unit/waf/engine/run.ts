/** Runs SecLang text over a request and reports what matched: the engine tests' one harness. */
import { parseSecLang } from '#engine/waf/seclang';
import { compileRuleSet, Transaction, type CompiledRuleSet } from '#engine/waf/engine';
import type { WafOutcome, WafRequest, WafResponse } from '../../../../engine/waf/types.ts';
import { OPS, TRANSFORMS } from './stand-ins.ts';

export interface RequestSpec {
  method?: string;
  uri?: string;
  headers?: [string, string][];
  body?: string;
  /** The body is only the start of a longer one (the reverse proxy). */
  bodyPartial?: boolean;
}

export function request(spec: RequestSpec = {}): WafRequest {
  return {
    method: spec.method ?? 'GET',
    uri: spec.uri ?? '/',
    protocol: 'HTTP/1.1',
    headers: spec.headers ?? [['Host', 'localhost']],
    body: spec.body === undefined ? null : Buffer.from(spec.body, 'latin1'),
    ...(spec.bodyPartial === true ? { bodyPartial: true } : {}),
    remoteAddr: '192.0.2.1',
    remotePort: 40000,
    serverAddr: '192.0.2.2',
    serverPort: 80,
  };
}

export interface RunResult extends WafOutcome {
  ids: string[];
  log: string[];
  problems: string[];
}

export function compile(
  rules: string,
  file = '/rules/test.conf',
  disabledGroups: number[] = [],
): { ruleSet: CompiledRuleSet; problems: string[] } {
  const parsed = parseSecLang(rules, file);
  if (parsed.problems.length > 0) throw new Error(parsed.problems.map((p) => p.message).join('; '));
  const { ruleSet, problems } = compileRuleSet({
    directives: parsed.directives,
    operators: OPS,
    transformations: TRANSFORMS,
    dataFiles: new Map(),
    disabledGroups: new Set(disabledGroups),
  });
  return { ruleSet, problems: problems.map((p) => `${p.line}: ${p.message}`) };
}

/** One transaction over an already compiled rule set (rule sets keep state across transactions). */
export function inspect(
  ruleSet: CompiledRuleSet,
  spec: RequestSpec = {},
  opts: { response?: WafResponse; groupLevels?: readonly number[]; paranoiaLevel?: number } = {},
): RunResult {
  const log: string[] = [];
  const t = new Transaction(ruleSet, request(spec), {
    groupLevels: opts.groupLevels ?? Array<number>(12).fill(1),
    paranoiaLevel: opts.paranoiaLevel ?? 1,
    jsonXmlByContentType: true,
    logSink: (l) => log.push(l),
    uniqueId: 'test',
    now: new Date(0),
  });
  t.processRequest();
  if (opts.response) t.processResponse(opts.response);
  const out = t.processLogging();
  return { ...out, ids: out.matched.map((m) => m.id), log, problems: [] };
}

export function run(
  rules: string,
  spec: RequestSpec = {},
  opts: { response?: WafResponse; groupLevels?: number[]; file?: string; disabledGroups?: number[] } = {},
): RunResult {
  const { ruleSet, problems } = compile(rules, opts.file, opts.disabledGroups);
  return { ...inspect(ruleSet, spec, opts), problems };
}
