import { describe, expect, it } from 'vitest';
import { compileIpList, compilePathList, compilePathRegexList, gatewayAddressProblem } from '#engine/sites';
import {
  isRampartError,
  plainText,
  problemsOf,
  userRegexProblem,
  zodProblems,
  type FieldProblem,
} from '#engine/shared';
import { engineDetail, renderDetail, ruleSetProblemDetail } from '../../../renderer/src/lib/engine-detail.ts';
import { PARSE_PROBLEM_CODES, patternIssue } from '#engine/waf';
import { ARCHIVE_PROBLEM_CODES } from '../../../engine/waf/ruleset/archive.ts';
import { REGEX_ERROR_KINDS, type RegexErrorKind } from '../../../engine/shared/user-regex.ts';
import { formatMessage } from '../../../renderer/src/lib/message-format.ts';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';

/** The detail of an engine problem as the console shows it in `locale`. */
function shown(problem: FieldProblem, locale: 'en' | 'zh-CN'): string | null {
  const catalogue: Record<string, string> = locale === 'en' ? en : zhCN;
  const detail = engineDetail(problem.message, problem.field, problem.params ?? {});
  if (!detail) return null;
  return renderDetail(detail, (key, params) =>
    Object.hasOwn(catalogue, key) ? formatMessage(catalogue[key]!, params, locale) : null,
  );
}

function refusal(run: () => unknown): FieldProblem[] {
  try {
    run();
  } catch (error) {
    if (isRampartError(error)) return problemsOf(error);
    throw error;
  }
  throw new Error('the engine accepted it');
}

function zodRefusal(schema: ReturnType<typeof plainText>, value: unknown): FieldProblem[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('the schema accepted it');
  return zodProblems(parsed.error, 'name').map((p) => ({ ...p, field: 'name', message: p.message }));
}

/** A custom rule's pattern refused as the basic-rules service refuses it (field, sentence, parameters). */
function customRuleRefusal(pattern: string): FieldProblem {
  const issue = patternIssue(pattern);
  if (!issue) throw new Error('the engine accepted it');
  return { field: 'conditions.0.pattern', message: `conditions.0.pattern: ${issue.message}`, params: issue.params };
}

/** The parameters the engine sends for a regex error of `kind` (each kind is raised for real in tests/unit/shared). */
function regexParams(kind: RegexErrorKind): Record<string, string> {
  return { reason: 'regex_invalid', kind, error: 'V8 words' };
}

/** Latin words of three letters or more, less the names Chinese text keeps (IP, CIDR, Unicode...). */
const englishWords = (text: string): string[] =>
  (text.match(/[A-Za-z]{3,}/g) ?? []).filter(
    (w) => !['CIDR', 'Unicode', 'IPv', 'URL', 'rampart', 'example', 'lan'].includes(w),
  );

describe('engine refusals in the console language', () => {
  it('says an IP list entry that is no address, and a bad prefix length, in Chinese', () => {
    const problems = refusal(() => compileIpList(['10.0.0.1', 'nope', '10.0.0.0/40'], 'ipBlacklist'));
    expect(problems.map((p) => shown(p, 'zh-CN'))).toEqual([
      '“nope”不是 IP 地址或 CIDR',
      '“10.0.0.0/40”前缀长度无效（应为 0 到 32）',
    ]);
    expect(shown(problems[0]!, 'en')).toBe('"nope" is not an IP address or CIDR');
    // The engine names the reason and the entry, not only an English sentence.
    expect(problems[0]!.params).toEqual({ line: 2, reason: 'not_ip', value: 'nope' });
    expect(problems[1]!.params).toEqual({ line: 3, reason: 'prefix_length', value: '10.0.0.0/40', max: 32 });
  });

  it('says a path regex that is invalid or cannot run in linear time in Chinese', () => {
    const problems = refusal(() => compilePathRegexList(['^/a(', '^/(a)\\1$'], 'pathRegex'));
    const [invalid, notLinear] = problems.map((p) => shown(p, 'zh-CN'));
    expect(invalid).toBe('“^/a(”不是有效的正则表达式（分组未闭合）');
    expect(shown(problems[0]!, 'en')).toBe('"^/a(" is not a valid regular expression (a group is not closed)');
    expect(notLinear).toBe('“^/(a)\\1$”使用了无法在线性时间内运行的结构（不允许反向引用和环视）');
    expect(problems.map((p) => p.params?.reason)).toEqual(['regex_invalid', 'not_linear']);
    expect(problems[0]!.params?.kind).toBe('unterminated_group');
  });

  it('says a list line with a control character, and a path without a leading slash, in Chinese', () => {
    const problems = refusal(() => compilePathList(['/ok', 'a\u202eb', 'admin'], 'paths'));
    expect(problems.map((p) => shown(p, 'zh-CN'))).toEqual([
      '不能包含控制字符或双向格式字符（第 2 个字符 U+202E）',
      '“a\u202eb”必须以 / 开头',
      '“admin”必须以 / 开头',
    ]);
  });

  it('says a custom rule regex error and a gateway address error in Chinese', () => {
    const regex = { field: 'conditions.0.pattern', message: `conditions.0.pattern: ${userRegexProblem('(?<=a)b')}` };
    expect(shown(regex, 'zh-CN')).toBe('使用了无法在线性时间内运行的结构（不允许反向引用和环视）');
    for (const value of ['nope', 'host:99999', '[zz]:80']) {
      const text = shown({ field: 'address', message: `address: ${gatewayAddressProblem(value)}` }, 'zh-CN');
      expect(text, value).not.toBeNull();
      expect(englishWords(text!), value).toEqual([]);
    }
  });

  it('says zod bounds and the control-character refusal of free text in Chinese, with English plurals', () => {
    const [tooLong] = zodRefusal(plainText(3), 'abcdef');
    expect(shown(tooLong!, 'zh-CN')).toBe('不能超过 3 个字符');
    expect(shown(tooLong!, 'en')).toBe('must be at most 3 characters long');
    const [control] = zodRefusal(plainText(20), 'a\nb');
    expect(shown(control!, 'zh-CN')).toBe('不能包含控制字符或双向格式字符（第 2 个字符 U+000A）');
    expect(control!.params).toMatchObject({ reason: 'control_char', codePoint: 'U+000A', position: 2 });
  });

  it('says a rule set that cannot be loaded in Chinese, keeping the parser detail', () => {
    const problem = {
      field: 'dir',
      message: 'dir: the rule set cannot be loaded: unknown operator @foo. The previous rule set keeps running.',
      params: { file: 'x.conf', line: 3 },
    };
    expect(shown(problem, 'zh-CN')).toBe('规则集无法加载：unknown operator @foo。之前的规则集继续运行。');
  });

  it('says each kind of V8 regex error in Chinese, with no English left', () => {
    for (const kind of REGEX_ERROR_KINDS) {
      if (kind === 'other') continue;
      const text = shown(
        { field: 'pattern', message: 'pattern: is not a valid regular expression (x)', params: regexParams(kind) },
        'zh-CN',
      );
      expect(text, kind).toMatch(/^不是有效的正则表达式（.+）$/);
      expect(englishWords(text!), kind).toEqual([]);
    }
  });

  it("says a custom rule's invalid regex in Chinese from the kind the engine sends", () => {
    const problem = customRuleRefusal('a{2,1}');
    expect(problem.params).toMatchObject({ reason: 'regex_invalid', kind: 'quantifier_out_of_order' });
    expect(shown(problem, 'zh-CN')).toBe('不是有效的正则表达式（量词中的数字顺序颠倒（最小值大于最大值））');
  });

  it("keeps V8's words for a kind this console does not know", () => {
    const params = { reason: 'regex_invalid', kind: 'from_a_later_v8', error: 'Something new' };
    expect(shown({ field: 'pattern', message: 'pattern: x', params }, 'zh-CN')).toBe(
      '不是有效的正则表达式（Something new）',
    );
    const other = { reason: 'regex_invalid', kind: 'other', error: 'Something new' };
    expect(shown({ field: 'pattern', message: 'pattern: x', params: other }, 'en')).toBe(
      'is not a valid regular expression (Something new)',
    );
  });

  it('says a broken rule file refused by PUT /rule-set in Chinese, from its code and parameters', () => {
    const problem = {
      field: 'dir',
      message: 'dir: the rule set cannot be loaded: rules/x.conf:3: SecRule: unknown operator @foo (and 2 more).',
      params: {
        reason: 'rule_set',
        problem: 'unknown_operator',
        in: 'SecRule',
        operator: 'foo',
        more: 2,
        kept: true,
        file: 'rules/x.conf',
        line: 3,
      },
    };
    expect(shown(problem, 'zh-CN')).toBe('规则集无法加载：rules/x.conf:3：SecRule：未知操作符 @foo（另有 2 个问题）。');
    expect(shown(problem, 'en')).toBe(
      'the rule set cannot be loaded: rules/x.conf:3: SecRule: unknown operator @foo (and 2 more problems).',
    );
    expect(shown({ ...problem, params: { ...problem.params, more: 0 } }, 'en')).toBe(
      'the rule set cannot be loaded: rules/x.conf:3: SecRule: unknown operator @foo.',
    );
  });

  it('says an archive refused by the upload, and a folder without rules, in Chinese', () => {
    const archive = {
      field: 'fileName',
      message: 'fileName: the rule set cannot be loaded: crs.tar.gz: not gzip data.',
      params: { reason: 'rule_set', problem: 'archive_not_gzip', archive: 'crs.tar.gz', kept: false },
    };
    expect(shown(archive, 'zh-CN')).toBe('规则集无法加载：crs.tar.gz：不是 gzip 数据。');
    const uploaded = { reason: 'rule_set', problem: 'no_rules_folder', source: 'uploaded', kept: false };
    expect(shown({ field: 'fileName', message: 'x', params: uploaded }, 'zh-CN')).toBe(
      '规则集无法加载：上传的规则集中没有 rules/ 文件夹（应为 CRS 发布包：crs-setup.conf.example 和 rules/*.conf）。',
    );
  });

  it("falls back to the engine's sentence for a rule-set problem code this console does not know", () => {
    const problem = {
      field: 'dir',
      message: 'dir: the rule set cannot be loaded: something new.',
      params: { reason: 'rule_set', problem: 'something_new' },
    };
    expect(shown(problem, 'zh-CN')).toBe('规则集无法加载：something new。');
  });

  it('has a Chinese text for every rule-set problem code the engine reports', () => {
    const codes = [...PARSE_PROBLEM_CODES, ...ARCHIVE_PROBLEM_CODES, 'no_rule_set_found', 'no_rules_folder'];
    for (const code of [...codes, 'no_scoring_rules', 'load_failed']) {
      const detail = ruleSetProblemDetail(code, {});
      const text = detail && renderDetail(detail, (key) => (Object.hasOwn(zhCN, key) ? 'x' : null));
      expect(text, code).toBe('x');
    }
  });

  it("says the console API's own request refusals in Chinese", () => {
    const cases: [FieldProblem, string][] = [
      [
        { field: 'request', message: 'request: did not arrive in time', params: { reason: 'request_timeout' } },
        '未能及时到达',
      ],
      [
        {
          field: 'path',
          message: 'path: a path parameter is longer than 200 characters',
          params: { reason: 'path_param_too_long', max: 200 },
        },
        '包含超过 200 个字符的路径参数',
      ],
      [
        {
          field: 'body',
          message: 'body: Content-Type must be application/json',
          params: { reason: 'content_type_json' },
        },
        '必须以 application/json（Content-Type）发送',
      ],
      [
        { field: 'request', message: 'request: is not a valid HTTP request', params: { reason: 'bad_http_request' } },
        '不是有效的 HTTP 请求',
      ],
    ];
    for (const [problem, text] of cases) expect(shown(problem, 'zh-CN')).toBe(text);
  });

  it('leaves an unknown sentence to the engine (null), never a wrong translation', () => {
    expect(shown({ field: 'x', message: 'x: something new happened' }, 'zh-CN')).toBeNull();
  });
});
