/**
 * The detail of an engine refusal as a catalogue key and its parameters, so the console says it in
 * its own language. The engine sends a code with parameters (zod's issue code and bounds, or a
 * `reason`) and an English sentence for logs; where it sends no parameters yet, a known sentence is
 * read for them. Pure: the caller translates with `t`. Null when nothing is known: the caller shows
 * the engine's sentence.
 */
export type DetailParams = Readonly<Record<string, string | number | boolean>>;
export interface Detail {
  key: `detail.${string}`;
  params: Record<string, string | number>;
}

const str = (value: string | number | boolean | undefined): string => (value === undefined ? '' : String(value));
const num = (value: unknown): number => Number(value);

/** zod's issue codes with their bounds (engine/shared/zod-problems.ts). */
function fromIssue(params: DetailParams): Detail | null {
  const origin = str(params.origin);
  const kind =
    origin === 'string' || origin === 'array' || origin === 'set' ? (origin === 'set' ? 'array' : origin) : 'number';
  switch (params.code) {
    case 'too_big':
      return {
        key: params.inclusive === false && kind === 'number' ? 'detail.too_big.exclusive' : `detail.too_big.${kind}`,
        params: { maximum: num(params.maximum) },
      };
    case 'too_small':
      if (kind === 'string' && num(params.minimum) === 1) return { key: 'detail.empty', params: {} };
      return {
        key:
          params.inclusive === false && kind === 'number' ? 'detail.too_small.exclusive' : `detail.too_small.${kind}`,
        params: { minimum: num(params.minimum) },
      };
    case 'invalid_format':
      return params.format === 'email' || params.format === 'url'
        ? { key: `detail.format.${params.format}`, params: {} }
        : { key: 'detail.format', params: {} };
    case 'invalid_type':
      return { key: 'detail.type', params: { expected: str(params.expected) } };
    case 'invalid_value':
      return { key: 'detail.oneOf', params: { values: str(params.values) } };
    case 'not_multiple_of':
      return { key: 'detail.multipleOf', params: { divisor: num(params.divisor) } };
    case 'unrecognized_keys':
      return { key: 'detail.unknownField', params: {} };
    default:
      return null;
  }
}

/** Known sentences of the engine (without the field and line they start with), read for parameters. */
const SENTENCES: readonly [RegExp, (m: RegExpExecArray) => Detail][] = [
  [
    /^is not a valid regular expression \((.*)\)$/s,
    (m) => ({ key: 'detail.regexInvalid', params: { error: str(m[1]) } }),
  ],
  [/^uses a construct that cannot run in linear time\b/, () => ({ key: 'detail.regexNotLinear', params: {} })],
  [
    /^must not contain control or bidirectional-formatting characters \((U\+[0-9A-F]+) at position (\d+)\)$/,
    (m) => ({ key: 'detail.controlChar', params: { codePoint: str(m[1]), position: num(m[2]) } }),
  ],
  [
    /^must be valid Unicode text \(a lone surrogate (U\+[0-9A-F]+) at position (\d+)\)$/,
    (m) => ({ key: 'detail.loneSurrogate', params: { codePoint: str(m[1]), position: num(m[2]) } }),
  ],
  [/^is not an IP address or CIDR$/, () => ({ key: 'detail.notIp', params: {} })],
  [
    /^has an invalid prefix length \(0 to (\d+)\)$/,
    (m) => ({ key: 'detail.prefixLength', params: { max: num(m[1]) } }),
  ],
  [/^must start with \/$/, () => ({ key: 'detail.startSlash', params: {} })],
  [/^must be host:port\b/, () => ({ key: 'detail.hostPort', params: {} })],
  [/^must have a port from 1 to 65535$/, () => ({ key: 'detail.port', params: {} })],
  [/^must have a valid IPv6 address in brackets$/, () => ({ key: 'detail.ipv6', params: {} })],
  [/^must have a valid host name$/, () => ({ key: 'detail.hostName', params: {} })],
  [/^must be an absolute path\b/, () => ({ key: 'detail.absolutePath', params: {} })],
  [
    /^the rule set cannot be loaded: (.*?)\.( The previous rule set keeps running\.)?$/s,
    (m) => ({ key: m[2] ? 'detail.ruleSetKept' : 'detail.ruleSet', params: { reason: str(m[1]) } }),
  ],
  [/^is not a known field$/, () => ({ key: 'detail.unknownField', params: {} })],
];

/** A reason the engine names in `params.reason`, with the parameters it sent. */
const REASONS: Readonly<Record<string, `detail.${string}`>> = {
  regex_invalid: 'detail.regexInvalid',
  not_linear: 'detail.regexNotLinear',
  control_char: 'detail.controlChar',
  lone_surrogate: 'detail.loneSurrogate',
  not_ip: 'detail.notIp',
  prefix_length: 'detail.prefixLength',
  start_slash: 'detail.startSlash',
};

function fromSentence(sentence: string): Detail | null {
  const quoted = /^"((?:[^"\\]|\\.)*)" (.*)$/s.exec(sentence);
  if (quoted) {
    const inner = fromSentence(quoted[2] ?? '');
    return inner
      ? { key: 'detail.quoted', params: { ...inner.params, value: quoted[1] ?? '', innerKey: inner.key } }
      : null;
  }
  for (const [pattern, make] of SENTENCES) {
    const match = pattern.exec(sentence);
    if (match) return make(match);
  }
  return null;
}

/**
 * The detail of one problem: `field` and `message` as the engine sent them. The message's leading
 * `field: ` and `line N: ` are dropped (the console says them itself).
 */
export function engineDetail(message: string, field: string | undefined, params: DetailParams): Detail | null {
  const reasonKey = typeof params.reason === 'string' ? REASONS[params.reason] : undefined;
  const plain: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(params)) plain[k] = typeof v === 'boolean' ? String(v) : v;
  let sentence = message;
  if (field && sentence.startsWith(`${field}: `)) sentence = sentence.slice(field.length + 2);
  sentence = sentence.replace(/^line \d+: /, '');
  if (reasonKey) {
    const value = plain.value;
    return value === undefined
      ? { key: reasonKey, params: plain }
      : { key: 'detail.quoted', params: { ...plain, value, innerKey: reasonKey } };
  }
  if (params.code === 'custom' && params.format === 'ip') return { key: 'detail.format.ip', params: {} };
  if (typeof params.code === 'string' && params.code !== 'custom') {
    const issue = fromIssue(params);
    if (issue) return issue;
  }
  return fromSentence(sentence);
}

/** The detail as text: `say` translates one key (null for a key the catalogue lacks). */
export function renderDetail(
  detail: Detail,
  say: (key: string, params: Record<string, string | number>) => string | null,
): string | null {
  const { innerKey, ...params } = detail.params;
  if (detail.key === 'detail.quoted' && typeof innerKey === 'string') {
    const inner = say(innerKey, params);
    return inner === null ? null : say('detail.quoted', { ...params, detail: inner });
  }
  return say(detail.key, params);
}
