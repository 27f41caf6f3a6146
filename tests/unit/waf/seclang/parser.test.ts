import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatVariable, parseActions, parseSecLang, parseVariables } from '../../../../engine/waf/seclang/index.ts';
import type { Directive } from '../../../../engine/waf/types.ts';
import { CRS3, CRS4, HAS_CRS3, missing } from '../../../support/crs-dirs.ts';
import { skipAllWithout } from '../../../support/skip.ts';

type Rule = Directive & { kind: 'rule' };

function parseOne(text: string): Directive {
  const { directives, problems } = parseSecLang(text, 'test.conf');
  expect(problems).toEqual([]);
  expect(directives).toHaveLength(1);
  return directives[0] as Directive;
}

function rule(text: string): Rule {
  const d = parseOne(text);
  if (d.kind !== 'rule') throw new Error(`expected a rule, got ${d.kind}`);
  return d;
}

function chainLength(r: Rule | undefined): number {
  return r ? 1 + chainLength(r.chained) : 0;
}

function countRules(directives: readonly Directive[]): number {
  return directives.reduce((n, d) => n + (d.kind === 'rule' ? chainLength(d) : 0), 0);
}

describe('SecRule from CRS, as written', () => {
  it('reads a multi-line rule with continuations, quoted actions and setvar macros (CRS 942100)', () => {
    const r = rule(String.raw`
# SQL injection by libinjection
SecRule REQUEST_COOKIES|!REQUEST_COOKIES:/__utm/|REQUEST_COOKIES_NAMES|ARGS_NAMES|ARGS|XML:/* "@detectSQLi" \
    "id:942100,\
    phase:2,\
    block,\
    capture,\
    t:none,t:utf8toUnicode,t:urlDecodeUni,t:removeNulls,\
    msg:'SQL Injection Attack Detected via libinjection',\
    logdata:'Matched Data: %{TX.0} found within %{MATCHED_VAR_NAME}: %{MATCHED_VAR}',\
    tag:'paranoia-level/1',\
    severity:'CRITICAL',\
    setvar:'tx.sql_injection_score=+%{tx.critical_anomaly_score}',\
    setvar:'tx.anomaly_score_pl1=+%{tx.critical_anomaly_score}'"
`);
    expect(r.line).toBe(3);
    expect(r.file).toBe('test.conf');
    expect(r.variables.map(formatVariable)).toEqual([
      'REQUEST_COOKIES',
      '!REQUEST_COOKIES:/__utm/',
      'REQUEST_COOKIES_NAMES',
      'ARGS_NAMES',
      'ARGS',
      'XML:/*',
    ]);
    expect(r.variables[1]).toEqual({
      name: 'REQUEST_COOKIES',
      key: { kind: 'regex', source: '__utm' },
      count: false,
      exclude: true,
    });
    expect(r.variables[5]?.key).toEqual({ kind: 'literal', value: '/*' });
    expect(r.operator).toEqual({ name: 'detectSQLi', negated: false, argument: '' });
    expect(r.actions.slice(0, 5)).toEqual([
      { name: 'id', value: '942100' },
      { name: 'phase', value: '2' },
      { name: 'block' },
      { name: 'capture' },
      { name: 't', value: 'none' },
    ]);
    expect(r.actions.filter((a) => a.name === 't').map((a) => a.value)).toEqual([
      'none',
      'utf8toUnicode',
      'urlDecodeUni',
      'removeNulls',
    ]);
    expect(r.actions.find((a) => a.name === 'logdata')?.value).toBe(
      'Matched Data: %{TX.0} found within %{MATCHED_VAR_NAME}: %{MATCHED_VAR}',
    );
    expect(r.actions.at(-1)).toEqual({ name: 'setvar', value: 'tx.anomaly_score_pl1=+%{tx.critical_anomaly_score}' });
  });

  it('unescapes \\" in the operator and keeps every other backslash (CRS 920470)', () => {
    const r = rule(
      String.raw`SecRule REQUEST_HEADERS:Content-Type "@rx charset\s*=\s*[\"']?([^;\"'\s]+)" "id:920480,phase:1,block,capture"`,
    );
    expect(r.operator).toEqual({ name: 'rx', negated: false, argument: String.raw`charset\s*=\s*["']?([^;"'\s]+)` });
    expect(r.variables).toEqual([
      { name: 'REQUEST_HEADERS', key: { kind: 'literal', value: 'Content-Type' }, count: false, exclude: false },
    ]);
  });

  it('reads negated operators, counts and a data file operator (CRS 920430, 930120)', () => {
    const negated = rule(`SecRule REQUEST_PROTOCOL "!@within %{tx.allowed_http_versions}" "id:920430,phase:1,block"`);
    expect(negated.operator).toEqual({ name: 'within', negated: true, argument: '%{tx.allowed_http_versions}' });
    const count = rule(`SecRule &REQUEST_HEADERS:Host "@eq 0" "id:920280,phase:1,pass"`);
    expect(count.variables[0]).toEqual({
      name: 'REQUEST_HEADERS',
      key: { kind: 'literal', value: 'Host' },
      count: true,
      exclude: false,
    });
    const pmf = rule(`SecRule REQUEST_FILENAME|ARGS "@pmFromFile lfi-os-files.data" "id:930120,phase:2,block"`);
    expect(pmf.operator).toEqual({ name: 'pmFromFile', negated: false, argument: 'lfi-os-files.data' });
  });

  it("unescapes arguments as Apache's ap_getword_conf does: \\\\ and the quote inside quotes, \\\\ in bare words", () => {
    // CRS 920460: the regex is one backslash not preceded by another, followed by a letter.
    const r = rule(
      String.raw`SecRule REQUEST_URI "@rx (?:^|[^\\\\])\\\\[cdeghijklmpqwxyz123456789]" "id:920460,phase:2,block"`,
    );
    expect(r.operator.argument).toBe(String.raw`(?:^|[^\\])\\[cdeghijklmpqwxyz123456789]`);
    // Other backslashes stay for the regex; an escaped quote is the quote; `\\"` ends the word.
    expect(rule(String.raw`SecRule ARGS "@rx \d\/\'\"x" "id:1"`).operator.argument).toBe(String.raw`\d\/\'"x`);
    expect(rule(String.raw`SecRule ARGS "@rx a\\" "id:1"`).operator.argument).toBe('a\\');
    expect(rule(String.raw`SecRule ARGS '@rx it\'s' "id:1"`).operator.argument).toBe("it's");
    expect(rule(String.raw`SecRule ARGS ^a\\\d$ "id:1"`).operator.argument).toBe(String.raw`^a\\d$`);
    expect(parseActions(String.raw`msg:'a\\b\'c\d'`)).toEqual({
      ok: true,
      actions: [{ name: 'msg', value: String.raw`a\b'c\d` }],
    });
  });

  it('takes a bare operator as @rx, negated or not', () => {
    expect(rule(`SecRule ARGS "^a b$" "id:1"`).operator).toEqual({ name: 'rx', negated: false, argument: '^a b$' });
    expect(rule(`SecRule ARGS "!^x" "id:1"`).operator).toEqual({ name: 'rx', negated: true, argument: '^x' });
  });

  it("reads quoted /regex/ keys with | and escaped slashes (CRS 980 '/LEAKAGE\\\\\\/ERRORS/': Apache, then ModSecurity v2, unescape)", () => {
    const r = rule(String.raw`SecRule &TX:'/LEAKAGE\\\/ERRORS/' "@ge 1" "id:980140,phase:5,pass,nolog"`);
    expect(r.variables).toEqual([
      { name: 'TX', key: { kind: 'regex', source: String.raw`LEAKAGE\/ERRORS` }, count: true, exclude: false },
    ]);
    const alt = rule(`SecRule ARGS:/^(?:a|b)$/|TX:/MULTIPART_HEADERS_CONTENT_TYPES_*/ "@rx x" "id:2"`);
    expect(alt.variables.map(formatVariable)).toEqual(['ARGS:/^(?:a|b)$/', 'TX:/MULTIPART_HEADERS_CONTENT_TYPES_*/']);
  });

  it('reads single-quoted action values with commas, escaped quotes and blanks after commas', () => {
    const parsed = parseActions(
      `id:'200002', phase:2,t:none,log,deny,status:400,msg:'Failed to parse, really',logdata:'%{reqbody_error_msg}',severity:2, msg:'it\\'s'`,
    );
    expect(parsed).toEqual({
      ok: true,
      actions: [
        { name: 'id', value: '200002' },
        { name: 'phase', value: '2' },
        { name: 't', value: 'none' },
        { name: 'log' },
        { name: 'deny' },
        { name: 'status', value: '400' },
        { name: 'msg', value: 'Failed to parse, really' },
        { name: 'logdata', value: '%{reqbody_error_msg}' },
        { name: 'severity', value: '2' },
        { name: 'msg', value: "it's" },
      ],
    });
  });

  it('spells action names canonically whatever their case', () => {
    const parsed = parseActions('ID:1,SKIPAFTER:END,multimatch,LogData:x');
    expect(parsed.ok && parsed.actions.map((a) => a.name)).toEqual(['id', 'skipAfter', 'multiMatch', 'logdata']);
  });

  it('nests chains: each following SecRule becomes chained of the previous (CRS 920181 shape)', () => {
    const { directives, problems } = parseSecLang(
      [
        'SecRule &REQUEST_HEADERS:Transfer-Encoding "!@eq 0" \\',
        '    "id:920181,phase:1,block,t:none,msg:\'Content-Length and Transfer-Encoding headers present.\',chain"',
        '    SecRule &REQUEST_HEADERS:Content-Length "!@eq 0" "chain"',
        '        SecRule REQUEST_METHOD "@streq POST" \\',
        '            "t:none,setvar:\'tx.anomaly_score_pl1=+%{tx.critical_anomaly_score}\'"',
        'SecMarker "END-REQUEST-920-PROTOCOL-ENFORCEMENT"',
      ].join('\n'),
      'chain.conf',
    );
    expect(problems).toEqual([]);
    expect(directives.map((d) => d.kind)).toEqual(['rule', 'marker']);
    const head = directives[0] as Rule;
    expect(chainLength(head)).toBe(3);
    expect(head.chained?.line).toBe(3);
    expect(head.chained?.chained?.line).toBe(4);
    expect(head.chained?.chained?.operator).toEqual({ name: 'streq', negated: false, argument: 'POST' });
    expect(head.chained?.chained?.chained).toBeUndefined();
    expect(directives[1]).toEqual({
      kind: 'marker',
      label: 'END-REQUEST-920-PROTOCOL-ENFORCEMENT',
      file: 'chain.conf',
      line: 6,
    });
  });

  it('reads SecAction, SecDefaultAction and SecMarker (crs-setup.conf)', () => {
    const { directives, problems } = parseSecLang(
      [
        'SecDefaultAction "phase:1,log,auditlog,pass"',
        'SecAction \\',
        '    "id:900990,\\',
        '    phase:1,\\',
        '    nolog,\\',
        '    pass,\\',
        '    t:none,\\',
        '    setvar:tx.crs_setup_version=334"',
        'SecMarker END_HOST_CHECK',
      ].join('\n'),
      'crs-setup.conf',
    );
    expect(problems).toEqual([]);
    expect(directives).toEqual([
      {
        kind: 'defaultAction',
        actions: [{ name: 'phase', value: '1' }, { name: 'log' }, { name: 'auditlog' }, { name: 'pass' }],
        file: 'crs-setup.conf',
        line: 1,
      },
      {
        kind: 'action',
        actions: [
          { name: 'id', value: '900990' },
          { name: 'phase', value: '1' },
          { name: 'nolog' },
          { name: 'pass' },
          { name: 't', value: 'none' },
          { name: 'setvar', value: 'tx.crs_setup_version=334' },
        ],
        file: 'crs-setup.conf',
        line: 2,
      },
      { kind: 'marker', label: 'END_HOST_CHECK', file: 'crs-setup.conf', line: 9 },
    ]);
  });

  it('keeps other directives as config with unquoted arguments, names spelled canonically', () => {
    const { directives, problems } = parseSecLang(
      [
        'SecRuleEngine On',
        'SecComponentSignature "OWASP_CRS/3.3.4"',
        'SecRuleRemoveById 9001200-9001299 920100',
        'SecRuleRemoveByTag "attack-sqli"',
        "SecRuleRemoveByMsg 'Bad thing'",
        'SecRuleUpdateTargetById 942100 "!ARGS:foo|!REQUEST_COOKIES:/^sess/"',
        'SecRuleUpdateTargetByTag attack-sqli "!ARGS:json.password"',
        'SecRuleUpdateActionById 942100 "pass,nolog"',
        'secrequestbodylimit 13107200',
        'SecResponseBodyMimeType text/plain text/html text/xml',
        'SecGeoLookupDB /usr/share/GeoIP/GeoLite2-Country.mmdb',
        'Include rules/*.conf',
      ].join('\n'),
      'setup.conf',
    );
    expect(problems).toEqual([]);
    const configs = directives.map((d) => (d.kind === 'config' ? [d.name, ...d.args] : [d.kind]));
    expect(configs).toEqual([
      ['SecRuleEngine', 'On'],
      ['SecComponentSignature', 'OWASP_CRS/3.3.4'],
      ['SecRuleRemoveById', '9001200-9001299', '920100'],
      ['SecRuleRemoveByTag', 'attack-sqli'],
      ['SecRuleRemoveByMsg', 'Bad thing'],
      ['SecRuleUpdateTargetById', '942100', '!ARGS:foo|!REQUEST_COOKIES:/^sess/'],
      ['SecRuleUpdateTargetByTag', 'attack-sqli', '!ARGS:json.password'],
      ['SecRuleUpdateActionById', '942100', 'pass,nolog'],
      ['SecRequestBodyLimit', '13107200'],
      ['SecResponseBodyMimeType', 'text/plain', 'text/html', 'text/xml'],
      ['SecGeoLookupDb', '/usr/share/GeoIP/GeoLite2-Country.mmdb'],
      ['Include', 'rules/*.conf'],
    ]);
    // What the engine does with SecRuleUpdateTargetById's second argument:
    const target = parseVariables('!ARGS:foo|!REQUEST_COOKIES:/^sess/');
    expect(target.ok && target.variables.map(formatVariable)).toEqual(['!ARGS:foo', '!REQUEST_COOKIES:/^sess/']);
  });

  it('ignores comments, including commented-out rules that end with a backslash', () => {
    const { directives, problems } = parseSecLang(
      ['# SecRule ARGS "@rx a" \\', 'SecRuleEngine On', '   # indented comment', '', 'SecMarker X'].join('\r\n'),
      'c.conf',
    );
    expect(problems).toEqual([]);
    expect(directives.map((d) => [d.kind, d.line])).toEqual([
      ['config', 2],
      ['marker', 5],
    ]);
  });
});

describe('parse problems name the file, the line and what is wrong', () => {
  const cases: [string, string, number, RegExp][] = [
    ['unterminated double quote', 'SecRuleEngine On\nSecRule ARGS "@rx a\n', 2, /unterminated double quote/],
    [
      'unterminated single quote in actions',
      `SecRule ARGS "@rx a" "id:1,msg:'oops"`,
      1,
      /unterminated single quote in the value of msg/,
    ],
    ['missing operator', 'SecRule ARGS', 1, /missing its operator/],
    ['unknown variable', 'SecRule ARGZ "@rx a" "id:1"', 1, /unknown variable ARGZ/],
    ['unknown operator', 'SecRule ARGS "@rxx a" "id:1"', 1, /unknown operator @rxx/],
    ['operator without its argument', 'SecRule ARGS "@rx" "id:1"', 1, /@rx needs an argument/],
    ['unknown action', 'SecRule ARGS "@rx a" "id:1,blocc"', 1, /unknown action "blocc"/],
    ['action without its value', 'SecRule ARGS "@rx a" "id:1,phase"', 1, /phase needs a value/],
    ['key on a scalar', 'SecRule REQUEST_URI:foo "@rx a" "id:1"', 1, /REQUEST_URI is not a collection/],
    ['unterminated regex key', 'SecRule ARGS:/abc "@rx a" "id:1"', 1, /unterminated \/regex\/ key/],
    ['too many arguments', 'SecRule ARGS "@rx a" "id:1" "extra"', 1, /expected 3/],
    ['unknown directive', '\n\nSecFooBar On', 3, /unknown directive "SecFooBar"/],
    ['rule without id', 'SecRule ARGS "@rx a" "phase:2"', 1, /no id action/],
    [
      'chain at end of file',
      'SecMarker A\nSecRule ARGS "@rx a" \\\n  "id:1,chain"\n',
      2,
      /chain at end of file: rule 1 \(line 2\)/,
    ],
    [
      'chain followed by no SecRule',
      'SecRule ARGS "@rx a" "id:1,chain"\nSecAction "id:2"',
      1,
      /next directive \(SecAction, line 2\) is not a SecRule/,
    ],
    ['bad SecRuleUpdateTargetById target', 'SecRuleUpdateTargetById 1 "!ARGZ:x"', 1, /unknown variable ARGZ/],
    ['SecRuleRemoveById with a non-id', 'SecRuleRemoveById abc', 1, /neither an id nor a range/],
    ['text after a closing quote', 'SecRule ARGS "@rx a"x "id:1"', 1, /unexpected text after the closing quote/],
  ];
  for (const [what, text, line, message] of cases) {
    it(what, () => {
      const { problems } = parseSecLang(text, 'broken.conf');
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ file: 'broken.conf', line });
      expect(problems[0]?.message).toMatch(message);
    });
  }

  it('goes on after a problem and never throws on garbage', () => {
    const garbage = [
      'SecRule "',
      "SecAction '",
      'SecRule ARGS|',
      '\\',
      '"',
      'SecRule &!:',
      'SecMarker',
      '\u0000\uffff',
    ].join('\n');
    const { directives, problems } = parseSecLang(`${garbage}\nSecMarker OK`, 'g.conf');
    expect(problems.length).toBeGreaterThanOrEqual(6);
    expect(directives.at(-1)).toMatchObject({ kind: 'marker', label: 'OK' });
  });
});

/** Rules per file in Debian's CRS 3.3.4 (every SecRule, chain links included). */
const CRS3_RULES: Record<string, number> = {
  'REQUEST-901-INITIALIZATION.conf': 31,
  'REQUEST-903.9001-DRUPAL-EXCLUSION-RULES.conf': 21,
  'REQUEST-903.9002-WORDPRESS-EXCLUSION-RULES.conf': 77,
  'REQUEST-903.9003-NEXTCLOUD-EXCLUSION-RULES.conf': 34,
  'REQUEST-903.9004-DOKUWIKI-EXCLUSION-RULES.conf': 28,
  'REQUEST-903.9005-CPANEL-EXCLUSION-RULES.conf': 4,
  'REQUEST-903.9006-XENFORO-EXCLUSION-RULES.conf': 42,
  'REQUEST-905-COMMON-EXCEPTIONS.conf': 5,
  'REQUEST-910-IP-REPUTATION.conf': 28,
  'REQUEST-911-METHOD-ENFORCEMENT.conf': 9,
  'REQUEST-912-DOS-PROTECTION.conf': 27,
  'REQUEST-913-SCANNER-DETECTION.conf': 13,
  'REQUEST-920-PROTOCOL-ENFORCEMENT.conf': 96,
  'REQUEST-921-PROTOCOL-ATTACK.conf': 23,
  'REQUEST-922-MULTIPART-ATTACK.conf': 6,
  'REQUEST-930-APPLICATION-ATTACK-LFI.conf': 12,
  'REQUEST-931-APPLICATION-ATTACK-RFI.conf': 13,
  'REQUEST-932-APPLICATION-ATTACK-RCE.conf': 25,
  'REQUEST-933-APPLICATION-ATTACK-PHP.conf': 26,
  'REQUEST-934-APPLICATION-ATTACK-NODEJS.conf': 9,
  'REQUEST-941-APPLICATION-ATTACK-XSS.conf': 38,
  'REQUEST-942-APPLICATION-ATTACK-SQLI.conf': 57,
  'REQUEST-943-APPLICATION-ATTACK-SESSION-FIXATION.conf': 14,
  'REQUEST-944-APPLICATION-ATTACK-JAVA.conf': 19,
  'REQUEST-949-BLOCKING-EVALUATION.conf': 15,
  'RESPONSE-950-DATA-LEAKAGES.conf': 11,
  'RESPONSE-951-DATA-LEAKAGES-SQL.conf': 41,
  'RESPONSE-952-DATA-LEAKAGES-JAVA.conf': 10,
  'RESPONSE-953-DATA-LEAKAGES-PHP.conf': 12,
  'RESPONSE-954-DATA-LEAKAGES-IIS.conf': 13,
  'RESPONSE-959-BLOCKING-EVALUATION.conf': 13,
  'RESPONSE-980-CORRELATION.conf': 18,
};

function parseFile(path: string): { rules: number; problems: unknown[] } {
  const { directives, problems } = parseSecLang(readFileSync(path, 'latin1'), path);
  return { rules: countRules(directives), problems };
}

describe("Debian's CRS 3.3.4 parses without a problem", () => {
  skipAllWithout(missing.crs3);
  const files = HAS_CRS3
    ? readdirSync(CRS3.rules)
        .filter((f) => f.endsWith('.conf'))
        .sort()
    : [];

  it('has the files we expect', () => {
    expect(files).toEqual(Object.keys(CRS3_RULES).sort());
  });

  for (const f of files) {
    it(f, () => {
      const { rules, problems } = parseFile(join(CRS3.rules, f));
      expect(problems).toEqual([]);
      expect(rules).toBe(CRS3_RULES[f]);
    });
  }

  it('crs-setup.conf and the two exclusion files', () => {
    for (const path of [CRS3.setup, CRS3.before, CRS3.after]) expect(parseFile(path).problems).toEqual([]);
  });
});

describe('CRS v4 parses without a problem', () => {
  skipAllWithout(missing.crs4);
  const files = CRS4
    ? readdirSync(CRS4.rules)
        .filter((f) => f.endsWith('.conf'))
        .sort()
    : [];

  for (const f of files) {
    it(f, () => {
      const { rules, problems } = parseFile(join(CRS4?.rules ?? '', f));
      expect(problems).toEqual([]);
      // REQUEST-999-COMMON-EXCEPTIONS-AFTER holds only SecRuleUpdateTargetById lines.
      if (!f.startsWith('REQUEST-999')) expect(rules).toBeGreaterThan(0);
    });
  }

  it('crs-setup.conf.example', () => {
    expect(parseFile(CRS4?.setup ?? '').problems).toEqual([]);
  });
});
