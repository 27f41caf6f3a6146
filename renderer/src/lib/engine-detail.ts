/**
 * The detail of an engine refusal as a catalogue key and its parameters, so the console says it in
 * its own language. The engine sends a code with parameters (zod's issue code and bounds, or a
 * `reason`: a regex error's `kind`, a rule-set problem's `problem` code, a server refusal) and an
 * English sentence for logs; where it sends no parameters yet, a known sentence is read for them.
 * Pure: the caller translates with `t`. Null when nothing is known: the caller shows the engine's
 * sentence.
 */
export type DetailParams = Readonly<Record<string, string | number | boolean>>;
export interface Detail {
  key: `detail.${string}`;
  params: Record<string, string | number>;
  /** A detail said inside this one: its text is this one's `{detail}` parameter. */
  inner?: Detail;
  /** Said instead when this one cannot be (a key the catalogue lacks: a newer engine's code). */
  fallback?: Detail;
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
  [/^is not a valid regular expression \((.*)\)$/s, (m) => regexDetail({ error: str(m[1]) })],
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
  [/^is required$/, () => ({ key: 'detail.required', params: {} })],
  // CNAME access (engine/sites) and the checks of a site's certificate (engine/sites/site-certificate.ts).
  [/^is required for CNAME access$/, () => ({ key: 'detail.cname.originRequired', params: {} })],
  [/^choose HTTP, HTTPS or both$/, () => ({ key: 'detail.cname.protocolRequired', params: {} })],
  [/^must differ from the HTTP port$/, () => ({ key: 'detail.cname.portsDiffer', params: {} })],
  [/^must be an IP address or domain, then a port\b/, () => ({ key: 'detail.cname.originAddress', params: {} })],
  [/^the port must be from 1 to 65535$/, () => ({ key: 'detail.cname.originPort', params: {} })],
  [/^is not a PEM certificate\b/, () => ({ key: 'detail.cert.notPem', params: {} })],
  [/^holds a certificate that cannot be read$/, () => ({ key: 'detail.cert.unreadable', params: {} })],
  [/^must be at most 64 KB of PEM text$/, () => ({ key: 'detail.cert.tooLarge', params: {} })],
  [/^expired on (\d{4}-\d{2}-\d{2})$/, (m) => ({ key: 'detail.cert.expired', params: { date: str(m[1]) } })],
  [
    /^is not valid before (\d{4}-\d{2}-\d{2})$/,
    (m) => ({ key: 'detail.cert.notYetValid', params: { date: str(m[1]) } }),
  ],
  [
    /^does not name the site's domain (\S+) \(it names (.*)\)$/s,
    (m): Detail =>
      m[2] === 'no host'
        ? { key: 'detail.cert.wrongDomainNoHost', params: { domain: str(m[1]) } }
        : { key: 'detail.cert.wrongDomain', params: { domain: str(m[1]), names: str(m[2]) } },
  ],
  [/^cannot be used for TLS: (.*)$/s, (m) => ({ key: 'detail.cert.tls', params: { reason: str(m[1]) } })],
  // A site's exclusion of a Core Rule Set rule (engine/shared/rule-shape.ts).
  [
    /^must be a request collection \(.*\), optionally with :name$/,
    () => ({ key: 'detail.exclusion.collection', params: {} }),
  ],
  [/^has a colon but no name after it$/, () => ({ key: 'detail.exclusion.noName', params: {} })],
  [/^must start with \/ \(or be empty for every path\)$/, () => ({ key: 'detail.exclusion.pathSlash', params: {} })],
  [/^may hold \* only at its end \(a prefix\)$/, () => ({ key: 'detail.exclusion.pathStar', params: {} })],
  [/^is encrypted: upload the key without its passphrase$/, () => ({ key: 'detail.key.encrypted', params: {} })],
  [/^is not a PEM private key\b/, () => ({ key: 'detail.key.notPem', params: {} })],
  [/^cannot be read as a private key$/, () => ({ key: 'detail.key.unreadable', params: {} })],
  [/^does not belong to the certificate$/, () => ({ key: 'detail.key.mismatch', params: {} })],
];

/** A reason the engine names in `params.reason`, with the parameters it sent. */
const REASONS: Readonly<Record<string, `detail.${string}`>> = {
  not_linear: 'detail.regexNotLinear',
  control_char: 'detail.controlChar',
  lone_surrogate: 'detail.loneSurrogate',
  not_ip: 'detail.notIp',
  prefix_length: 'detail.prefixLength',
  start_slash: 'detail.startSlash',
  // The console API's own refusals of a request (engine/api/server.ts).
  headers_too_large: 'detail.headers_too_large',
  request_timeout: 'detail.request_timeout',
  bad_http_request: 'detail.bad_http_request',
  path_param_too_long: 'detail.path_param_too_long',
  bad_percent_encoding: 'detail.bad_percent_encoding',
  body_too_large: 'detail.body_too_large',
  content_type_json: 'detail.content_type_json',
  invalid_json: 'detail.invalid_json',
  bad_request: 'detail.bad_request',
};

/**
 * An invalid regex: V8's error by its `kind` (engine/shared/user-regex.ts), or V8's own words
 * (`error`) for a kind this console does not know.
 */
function regexDetail(params: Record<string, string | number>): Detail {
  const words: Detail = { key: 'detail.regexInvalid', params: { ...params, error: str(params.error) } };
  const kind = params.kind;
  if (typeof kind !== 'string' || kind === 'other' || !/^[a-z_]+$/.test(kind)) return words;
  return { key: 'detail.regexInvalidKind', params, inner: { key: `detail.regex.${kind}`, params }, fallback: words };
}

/** Codes with a variant for an uploaded set (the engine names no folder for it). */
const UPLOAD_VARIANTS: ReadonlySet<string> = new Set(['no_rules_folder', 'no_scoring_rules']);

/**
 * One rule-set problem (GET /rule-set's `problems[]` and `lastError`, or a refusal's `problem`):
 * its code with its parameters, inside the directive it was found in (`in`) when it has one.
 */
export function ruleSetProblemDetail(code: string, params: DetailParams): Detail | null {
  if (!/^[a-z0-9_]+$/.test(code)) return null;
  const plain = plainParams(params);
  const key = UPLOAD_VARIANTS.has(code) && plain.source === 'uploaded' ? `${code}.uploaded` : code;
  const own: Detail = { key: `detail.ruleSetProblem.${key}`, params: plain };
  return typeof plain.in === 'string' ? { key: 'detail.ruleSetIn', params: { in: plain.in }, inner: own } : own;
}

/** A refusal of a rule set (PUT /rule-set, the upload): where it failed, and why. */
function ruleSetDetail(params: Record<string, string | number>, fallback: Detail | null): Detail | null {
  const problem = ruleSetProblemDetail(str(params.problem), params);
  if (!problem) return fallback;
  const at = params.file !== undefined && params.file !== '' && params.line !== undefined;
  const detail: Detail = at
    ? {
        key: 'detail.ruleSetAt',
        params: { file: str(params.file), line: num(params.line), more: num(params.more ?? 0) },
        inner: problem,
      }
    : { key: 'detail.ruleSetCause', params: {}, inner: problem };
  return fallback ? { ...detail, fallback } : detail;
}

function plainParams(params: DetailParams): Record<string, string | number> {
  const plain: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(params)) plain[k] = typeof v === 'boolean' ? String(v) : v;
  return plain;
}

function fromSentence(sentence: string): Detail | null {
  const quoted = /^"((?:[^"\\]|\\.)*)" (.*)$/s.exec(sentence);
  if (quoted) {
    const inner = fromSentence(quoted[2] ?? '');
    return inner ? { key: 'detail.quoted', params: { value: quoted[1] ?? '' }, inner } : null;
  }
  for (const [pattern, make] of SENTENCES) {
    const match = pattern.exec(sentence);
    if (match) return make(match);
  }
  return null;
}

/**
 * The problem codes of a log configuration (engine/parse/config.ts CONFIG_PROBLEM_CODES, and the
 * edit refusals of the log-configs service), sent as `params.code`: each has its own text.
 */
const LOG_CONFIG_CODES: ReadonlySet<string> = new Set([
  'fields_too_many',
  'required_field_none',
  'json_field_on_plain_text',
  'field_name_empty',
  'field_name_too_long',
  'field_name_reserved',
  'field_name_invalid',
  'field_name_duplicate',
  'regex_empty',
  'regex_too_long',
  'group_invalid',
  'group_out_of_range',
  'source_empty',
  'source_too_long',
  'time_field_empty',
  'time_format_empty',
  'time_format_too_long',
  'time_format_unknown_text',
  'time_format_missing_token',
  'time_format_repeated_token',
  'timezone_unknown',
  'key_field_unknown',
  'key_target_unknown',
  'intelligence_fields_missing',
  'fields_locked',
  'method_locked',
  'log_config_read_only',
  'broker_not_allowed',
  'ca_invalid',
]);

/** A log configuration problem by its code (null for a code this console does not know). */
export function logConfigProblemDetail(code: string, params: DetailParams): Detail | null {
  const plain = plainParams(params);
  if (code === 'regex_invalid') return regexDetail(plain);
  if (code === 'regex_not_linear') return { key: 'detail.regexNotLinear', params: {} };
  if (!LOG_CONFIG_CODES.has(code)) return null;
  return { key: `detail.logConfig.${code}`, params: plain };
}

/** The parse failures of a line (engine/parse/failures.ts PARSE_FAILURE_CODES). */
const PARSE_FAILURE_CODES: ReadonlySet<string> = new Set([
  'line_empty',
  'line_too_long',
  'line_binary',
  'json_malformed',
  'json_not_object',
  'required_field_missing',
  'time_missing',
  'time_format_mismatch',
  'time_invalid',
  'parse_error',
]);

/**
 * Why a stored line did not become a record, from its code and the field it names (a failed record
 * carries no other parameters): null for a code this console does not know.
 */
export function parseFailureDetail(
  code: string,
  field: string | null,
  params: Readonly<Record<string, string | number>> = {},
): Detail | null {
  if (!PARSE_FAILURE_CODES.has(code)) return null;
  return { key: `detail.parseFailure.${code}`, params: { ...plainParams(params), field: field ?? '' } };
}

/**
 * The detail of one problem: `field` and `message` as the engine sent them. The message's leading
 * `field: ` and `line N: ` are dropped (the console says them itself).
 */
export function engineDetail(message: string, field: string | undefined, params: DetailParams): Detail | null {
  const plain = plainParams(params);
  let sentence = message;
  if (field && sentence.startsWith(`${field}: `)) sentence = sentence.slice(field.length + 2);
  sentence = sentence.replace(/^line \d+: /, '');
  if (params.reason === 'rule_set') return ruleSetDetail(plain, fromSentence(sentence));
  const reason = typeof params.reason === 'string' ? params.reason : undefined;
  const reasonKey = reason === undefined ? undefined : REASONS[reason];
  const own: Detail | null =
    reason === 'regex_invalid' ? regexDetail(plain) : reasonKey ? { key: reasonKey, params: plain } : null;
  if (own) {
    const value = plain.value;
    return value === undefined ? own : { key: 'detail.quoted', params: { value }, inner: own };
  }
  if (params.code === 'custom' && params.format === 'ip') return { key: 'detail.format.ip', params: {} };
  if (typeof params.code === 'string') {
    const logConfig = logConfigProblemDetail(params.code, params);
    const words = logConfig ? fromSentence(sentence) : null;
    if (logConfig) return words ? { ...logConfig, fallback: words } : logConfig;
  }
  if (typeof params.code === 'string' && params.code !== 'custom') {
    const issue = fromIssue(params);
    if (issue) return issue;
  }
  return fromSentence(sentence);
}

/**
 * The detail as text: `say` translates one key (null for a key the catalogue lacks). An inner
 * detail is said first and becomes the outer one's `{detail}`; a detail that cannot be said gives
 * way to its fallback.
 */
export function renderDetail(
  detail: Detail,
  say: (key: string, params: Record<string, string | number>) => string | null,
): string | null {
  const inner = detail.inner ? renderDetail(detail.inner, say) : undefined;
  const text =
    inner === null ? null : say(detail.key, inner === undefined ? detail.params : { ...detail.params, detail: inner });
  return text ?? (detail.fallback ? renderDetail(detail.fallback, say) : null);
}
