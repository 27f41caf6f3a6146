/**
 * Engine behaviour as data: SecLang rules and a request in, matched rule ids out.
 */
import { describe, expect, it } from 'vitest';
import { run, type RequestSpec } from './run.ts';

interface Case {
  name: string;
  rules: string;
  request?: RequestSpec;
  ids: string[];
}

const form = (body: string): RequestSpec => ({
  method: 'POST',
  headers: [
    ['Host', 'localhost'],
    ['Content-Type', 'application/x-www-form-urlencoded'],
  ],
  body,
});

const cases: Case[] = [
  {
    name: 'a TX regex key counts the keys it matches, whatever their case',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.Header_Name_Host=/host/,setvar:tx.header_name_accept=/accept/,setvar:tx.header=x"\nSecRule &TX:/^HEADER_NAME_/ "@eq 2" "id:2,phase:1,pass,log"`,
    ids: ['2'],
  },
  {
    name: 'a TX regex key with an optional last character matches without it',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.multipart_headers_content_typesX=a"\nSecRule TX:/MULTIPART_HEADERS_CONTENT_TYPES_*/ "@streq a" "id:2,phase:1,pass,log"`,
    ids: ['2'],
  },
  {
    name: 'a rule matches a query argument by name',
    rules: `SecRule ARGS:a "@rx x" "id:1,phase:1,pass,log"`,
    request: { uri: '/?a=x' },
    ids: ['1'],
  },
  {
    name: 'argument names match case-insensitively',
    rules: `SecRule ARGS:A "@rx x" "id:1,phase:1,pass,log"`,
    request: { uri: '/?a=x' },
    ids: ['1'],
  },
  {
    name: 'a regex key selects matching arguments',
    rules: `SecRule ARGS:/^fo/ "@rx x" "id:1,phase:1,pass,log"`,
    request: { uri: '/?foo=x' },
    ids: ['1'],
  },
  {
    name: 'an exclusion removes a target',
    rules: `SecRule ARGS|!ARGS:a "@rx x" "id:1,phase:1,pass,log"`,
    request: { uri: '/?a=x' },
    ids: [],
  },
  {
    name: '& counts the entries of a collection',
    rules: `SecRule &ARGS "@eq 2" "id:1,phase:1,pass,log"`,
    request: { uri: '/?a=1&b=2' },
    ids: ['1'],
  },
  {
    name: '& of a missing key counts zero',
    rules: `SecRule &REQUEST_HEADERS:X-Missing "@eq 0" "id:1,phase:1,pass,log"`,
    ids: ['1'],
  },
  {
    name: 'a negated operator matches when the value does not',
    rules: `SecRule REQUEST_METHOD "!@streq POST" "id:1,phase:1,pass,log"`,
    ids: ['1'],
  },
  {
    name: 'a negated operator does not run on a missing variable',
    rules: `SecRule REQUEST_HEADERS:X-Missing "!@rx ^$" "id:1,phase:1,pass,log"`,
    ids: [],
  },
  {
    name: 'nolog rules do not appear in the outcome',
    rules: `SecRule REQUEST_METHOD "@rx GET" "id:1,phase:1,pass,nolog"`,
    ids: [],
  },
  {
    name: 'a chain needs every link to match',
    rules: `SecRule REQUEST_METHOD "@rx GET" "id:1,phase:1,pass,log,chain"\n  SecRule ARGS:a "@rx y"`,
    request: { uri: '/?a=x' },
    ids: [],
  },
  {
    name: 'a chain whose links all match is logged once under the first id',
    rules: `SecRule REQUEST_METHOD "@rx GET" "id:1,phase:1,pass,log,chain"\n  SecRule ARGS:a "@rx x"`,
    request: { uri: '/?a=x' },
    ids: ['1'],
  },
  {
    name: 'setvar and a macro carry a value to a later rule',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.want=x"\nSecRule ARGS:a "@streq %{tx.want}" "id:2,phase:1,pass,log"`,
    request: { uri: '/?a=x' },
    ids: ['2'],
  },
  {
    name: 'setvar =+ adds to a number',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.s=2,setvar:tx.s=+3"\nSecRule TX:s "@eq 5" "id:2,phase:1,pass,log"`,
    ids: ['2'],
  },
  {
    name: 'setvar =- subtracts',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.s=5,setvar:tx.s=-3"\nSecRule TX:s "@eq 2" "id:2,phase:1,pass,log"`,
    ids: ['2'],
  },
  {
    name: 'setvar ! deletes a variable',
    rules: `SecAction "id:1,phase:1,pass,nolog,setvar:tx.s=5,setvar:!tx.s"\nSecRule &TX:s "@eq 0" "id:2,phase:1,pass,log"`,
    ids: ['2'],
  },
  {
    name: 'capture fills TX:1',
    rules: `SecRule ARGS:a "@rx (b+)" "id:1,phase:1,pass,nolog,capture,setvar:tx.got=%{tx.1}"\nSecRule TX:got "@streq bbb" "id:2,phase:1,pass,log"`,
    request: { uri: '/?a=abbbc' },
    ids: ['2'],
  },
  {
    name: 'MATCHED_VAR_NAME names the matched target',
    rules: `SecRule ARGS "@rx x" "id:1,phase:1,pass,nolog,setvar:tx.n=%{MATCHED_VAR_NAME}"\nSecRule TX:n "@streq ARGS:q" "id:2,phase:1,pass,log"`,
    request: { uri: '/?q=x' },
    ids: ['2'],
  },
  {
    name: 'skipAfter jumps past the marker',
    rules: `SecAction "id:1,phase:1,pass,nolog,skipAfter:END"\nSecAction "id:2,phase:1,pass,log"\nSecMarker END\nSecAction "id:3,phase:1,pass,log"`,
    ids: ['3'],
  },
  {
    name: 'skip jumps over the next rules',
    rules: `SecAction "id:1,phase:1,pass,nolog,skip:1"\nSecAction "id:2,phase:1,pass,log"\nSecAction "id:3,phase:1,pass,log"`,
    ids: ['3'],
  },
  {
    name: 'phase 1 rules run before phase 2 rules whatever the order',
    rules: `SecAction "id:2,phase:2,pass,log"\nSecAction "id:1,phase:1,pass,log"`,
    ids: ['1', '2'],
  },
  {
    name: 'deny stops the transaction',
    rules: `SecAction "id:1,phase:1,deny,log"\nSecAction "id:2,phase:2,pass,log"`,
    ids: ['1'],
  },
  {
    name: 'DetectionOnly runs every rule without interrupting',
    rules: `SecRuleEngine DetectionOnly\nSecAction "id:1,phase:1,deny,log"\nSecAction "id:2,phase:2,pass,log"`,
    ids: ['1', '2'],
  },
  {
    name: 'block takes the disruptive action of SecDefaultAction',
    rules: `SecDefaultAction "phase:1,log,pass"\nSecAction "id:1,phase:1,block,log"\nSecAction "id:2,phase:1,pass,log"`,
    ids: ['1', '2'],
  },
  {
    name: 'allow:phase skips the rest of the phase only',
    rules: `SecAction "id:1,phase:1,allow:phase,nolog"\nSecAction "id:2,phase:1,pass,log"\nSecAction "id:3,phase:2,pass,log"`,
    ids: ['3'],
  },
  {
    name: 'allow skips every later request rule',
    rules: `SecAction "id:1,phase:1,allow,nolog"\nSecAction "id:2,phase:1,pass,log"\nSecAction "id:3,phase:2,pass,log"`,
    ids: [],
  },
  {
    name: 'ctl:ruleRemoveById removes a later rule',
    rules: `SecAction "id:1,phase:1,pass,nolog,ctl:ruleRemoveById=2"\nSecAction "id:2,phase:1,pass,log"`,
    ids: [],
  },
  {
    name: 'ctl:ruleRemoveById takes ranges',
    rules: `SecAction "id:1,phase:1,pass,nolog,ctl:ruleRemoveById=10-20"\nSecAction "id:15,phase:1,pass,log"\nSecAction "id:21,phase:1,pass,log"`,
    ids: ['21'],
  },
  {
    name: 'ctl:ruleRemoveByTag removes rules with the tag',
    rules: `SecAction "id:1,phase:1,pass,nolog,ctl:ruleRemoveByTag=attack-sqli"\nSecAction "id:2,phase:1,pass,log,tag:'attack-sqli'"`,
    ids: [],
  },
  {
    name: 'ctl:ruleRemoveTargetById removes one target of a rule',
    rules: `SecAction "id:1,phase:1,pass,nolog,ctl:ruleRemoveTargetById=2;ARGS:a"\nSecRule ARGS "@rx x" "id:2,phase:1,pass,log"`,
    request: { uri: '/?a=x' },
    ids: [],
  },
  {
    name: 'ctl:ruleRemoveTargetByTag removes one target of tagged rules',
    rules: `SecAction "id:1,phase:1,pass,nolog,ctl:ruleRemoveTargetByTag=t1;ARGS:a"\nSecRule ARGS "@rx x" "id:2,phase:1,pass,log,tag:t1"`,
    request: { uri: '/?a=x' },
    ids: [],
  },
  {
    name: 'SecRuleRemoveById drops a rule at compile time',
    rules: `SecAction "id:1,phase:1,pass,log"\nSecRuleRemoveById 1`,
    ids: [],
  },
  {
    name: 'SecRuleUpdateTargetById adds an exclusion at compile time',
    rules: `SecRule ARGS "@rx x" "id:1,phase:1,pass,log"\nSecRuleUpdateTargetById 1 "!ARGS:a"`,
    request: { uri: '/?a=x' },
    ids: [],
  },
  {
    name: 'transformations apply before the operator',
    rules: `SecRule ARGS:a "@streq abc" "id:1,phase:1,pass,log,t:lowercase"`,
    request: { uri: '/?a=ABC' },
    ids: ['1'],
  },
  {
    name: 't:none drops the default transformations',
    rules: `SecDefaultAction "phase:1,log,pass,t:lowercase"\nSecRule ARGS:a "@streq ABC" "id:1,phase:1,pass,t:none"`,
    request: { uri: '/?a=ABC' },
    ids: ['1'],
  },
  {
    name: 'multiMatch tries the value after each transformation',
    rules: `SecRule ARGS:a "@streq A B" "id:1,phase:1,pass,log,multiMatch,t:lowercase,t:removeWhitespace"`,
    request: { uri: '/?a=A%20B' },
    ids: ['1'],
  },
  {
    name: 'urlencoded bodies become ARGS_POST',
    rules: `SecRule ARGS_POST:a "@streq x y" "id:1,phase:2,pass,log"`,
    request: form('a=x+y'),
    ids: ['1'],
  },
  {
    name: 'REQUEST_BODY holds the raw body',
    rules: `SecRule REQUEST_BODY "@streq a=x" "id:1,phase:2,pass,log"`,
    request: form('a=x'),
    ids: ['1'],
  },
  {
    name: 'REQBODY_PROCESSOR names the processor',
    rules: `SecRule REQBODY_PROCESSOR "@streq URLENCODED" "id:1,phase:2,pass,log"`,
    request: form('a=x'),
    ids: ['1'],
  },
  {
    name: 'JSON bodies become json.* arguments',
    rules: `SecRule ARGS:json.a.b "@streq 1" "id:1,phase:2,pass,log"`,
    request: { method: 'POST', headers: [['Content-Type', 'application/json']], body: '{"a":{"b":1}}' },
    ids: ['1'],
  },
  {
    name: 'malformed JSON sets REQBODY_ERROR',
    rules: `SecRule REQBODY_ERROR "!@eq 0" "id:1,phase:2,pass,log"`,
    request: { method: 'POST', headers: [['Content-Type', 'application/json']], body: '{"a":' },
    ids: ['1'],
  },
  {
    name: 'ctl:requestBodyProcessor=XML parses the body as XML',
    rules: `SecRule REQUEST_HEADERS:Content-Type "@rx ^foo" "id:1,phase:1,pass,nolog,ctl:requestBodyProcessor=XML"\nSecRule XML:/* "@rx secret" "id:2,phase:2,pass,log"`,
    request: { method: 'POST', headers: [['Content-Type', 'foo/bar']], body: '<a><b>secret</b></a>' },
    ids: ['2'],
  },
  {
    name: 'malformed XML sets REQBODY_ERROR',
    rules: `SecRule REQBODY_ERROR "@eq 1" "id:1,phase:2,pass,log"`,
    request: { method: 'POST', headers: [['Content-Type', 'text/xml']], body: '<a><b></a>' },
    ids: ['1'],
  },
  {
    name: 'multipart fields become ARGS and file names FILES',
    rules: `SecRule ARGS:f "@streq v" "id:1,phase:2,pass,log"\nSecRule FILES "@streq x.php" "id:2,phase:2,pass,log"`,
    request: {
      method: 'POST',
      headers: [['Content-Type', 'multipart/form-data; boundary=XX']],
      body: '--XX\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n--XX\r\nContent-Disposition: form-data; name="u"; filename="x.php"\r\n\r\n<?php\r\n--XX--\r\n',
    },
    ids: ['1', '2'],
  },
  {
    name: 'a multipart body without the final boundary is a body error',
    rules: `SecRule REQBODY_ERROR "@eq 1" "id:1,phase:2,pass,log"\nSecRule MULTIPART_STRICT_ERROR "@eq 1" "id:2,phase:2,pass,log"`,
    request: {
      method: 'POST',
      headers: [['Content-Type', 'multipart/form-data; boundary=XX']],
      body: '--XX\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n',
    },
    ids: ['1', '2'],
  },
  {
    name: 'the start of a longer multipart body (a proxy streams the rest) is no body error, and its fields are inspected',
    rules: `SecRule REQBODY_ERROR "@eq 1" "id:1,phase:2,pass,log"\nSecRule MULTIPART_STRICT_ERROR "@eq 1" "id:2,phase:2,pass,log"\nSecRule ARGS:f "@streq v" "id:3,phase:2,pass,log"`,
    request: {
      method: 'POST',
      headers: [['Content-Type', 'multipart/form-data; boundary=XX']],
      body: '--XX\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n--XX\r\nContent-Disposition: form-data; name="u"; filename="big.bin"\r\n\r\nAAAA',
      bodyPartial: true,
    },
    ids: ['3'],
  },
  {
    name: 'the start of a longer JSON body is no body error, and the values before the cut are inspected',
    rules: `SecRule REQBODY_ERROR "@eq 1" "id:1,phase:2,pass,log"\nSecRule ARGS:json.a "@streq 1" "id:2,phase:2,pass,log"`,
    request: {
      method: 'POST',
      headers: [['Content-Type', 'application/json']],
      body: '{"a":"1","b":"lo',
      bodyPartial: true,
    },
    ids: ['2'],
  },
  {
    name: 'cookies are parsed into REQUEST_COOKIES',
    rules: `SecRule REQUEST_COOKIES:sid "@streq abc" "id:1,phase:1,pass,log"`,
    request: { headers: [['Cookie', 'a=1; sid=abc']] },
    ids: ['1'],
  },
  {
    name: 'REQUEST_FILENAME is the decoded path without the query',
    rules: `SecRule REQUEST_FILENAME "@streq /a b" "id:1,phase:1,pass,log"`,
    request: { uri: '/a%20b?x=1' },
    ids: ['1'],
  },
  {
    name: 'REQUEST_BASENAME is the last path segment',
    rules: `SecRule REQUEST_BASENAME "@streq c.php" "id:1,phase:1,pass,log"`,
    request: { uri: '/a/b/c.php?x=1' },
    ids: ['1'],
  },
];

describe('engine behaviour', () => {
  for (const c of cases) {
    it(c.name, () => {
      const r = run(c.rules, c.request);
      expect(r.problems).toEqual([]);
      expect(r.ids).toEqual(c.ids);
    });
  }
});

describe('paranoia levels per group', () => {
  const rules = `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "id:942013,phase:1,pass,nolog,skipAfter:END-942"\nSecAction "id:942200,phase:1,pass,log"\nSecMarker END-942`;
  const file = '/crs/rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf';
  it("a group's rules see the group's level", () => {
    const levels = Array<number>(12).fill(1);
    levels[7] = 2; // 942 is GROUPS[7]
    expect(run(rules, {}, { file, groupLevels: levels }).ids).toEqual(['942200']);
  });
  it('a group at level 1 skips its level-2 rules', () => {
    expect(run(rules, {}, { file, groupLevels: Array<number>(12).fill(1) }).ids).toEqual([]);
  });
  it("a disabled group's rules do not run", () => {
    expect(run(`SecAction "id:942200,phase:1,pass,log"`, {}, { file, disabledGroups: [7] }).ids).toEqual([]);
  });
});

describe('outcome', () => {
  it('reports the interruption and its status', () => {
    const r = run(`SecAction "id:1,phase:1,deny,status:406,log"`);
    expect([r.interrupted, r.status]).toEqual([true, 406]);
  });
  it('reports the anomaly score the rules computed', () => {
    expect(run(`SecAction "id:1,phase:2,pass,nolog,setvar:tx.anomaly_score=+5"`).score).toBe(5);
  });
  it('writes a compatibility log line with the rule id', () => {
    expect(run(`SecAction "id:123,phase:1,pass,log,msg:'hi'"`).log[0]).toContain('[id "123"]');
  });
  it('expands msg macros at match time', () => {
    expect(
      run(`SecRule ARGS:a "@rx x" "id:1,phase:1,pass,log,msg:'got %{MATCHED_VAR}'"`, { uri: '/?a=x' }).matched[0]
        ?.message,
    ).toBe('got x');
  });
  it('rejects a body over the limit', () => {
    const r = run(`SecRequestBodyLimit 10\nSecAction "id:1,phase:2,pass,log"`, form('a=0123456789abcdef'));
    expect([r.interrupted, r.status, r.ids]).toEqual([true, 413, []]);
  });
  it('inspects the first bytes of a body over the limit with ProcessPartial', () => {
    const r = run(
      `SecRequestBodyLimit 5\nSecRequestBodyLimitAction ProcessPartial\nSecRule ARGS_POST:a "@streq 012" "id:1,phase:2,pass,log"`,
      form('a=0123456789'),
    );
    expect(r.ids).toEqual(['1']);
  });
  it('reports rules it cannot compile with their line', () => {
    expect(run(`SecRule ARGS "@detectSQLi" "id:1,phase:1,pass,log"`).problems[0]).toMatch(/^1: unsupported operator/);
  });
});

describe('response phases', () => {
  it('phase 4 sees the response body', () => {
    const r = run(
      `SecRule RESPONSE_BODY "@rx secret" "id:1,phase:4,pass,log"`,
      {},
      {
        response: {
          status: 200,
          protocol: 'HTTP/1.1',
          headers: [['Content-Type', 'text/html']],
          body: Buffer.from('a secret'),
        },
      },
    );
    expect(r.ids).toEqual(['1']);
  });
  it('phase 3 sees the response status', () => {
    const r = run(
      `SecRule RESPONSE_STATUS "@eq 500" "id:1,phase:3,pass,log"`,
      {},
      { response: { status: 500, protocol: 'HTTP/1.1', headers: [], body: null } },
    );
    expect(r.ids).toEqual(['1']);
  });
});
