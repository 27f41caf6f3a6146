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
import { engineDetail, renderDetail } from '../../../renderer/src/lib/engine-detail.ts';
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
    expect(invalid).toMatch(/^“\^\/a\(”不是有效的正则表达式（.+）$/);
    expect(notLinear).toBe('“^/(a)\\1$”使用了无法在线性时间内运行的结构（不允许反向引用和环视）');
    expect(problems.map((p) => p.params?.reason)).toEqual(['regex_invalid', 'not_linear']);
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

  it('leaves an unknown sentence to the engine (null), never a wrong translation', () => {
    expect(shown({ field: 'x', message: 'x: something new happened' }, 'zh-CN')).toBeNull();
  });
});
