import { describe, expect, it } from 'vitest';
import { CONFIG_PROBLEM_CODES, PARSE_FAILURE_CODES, parseFailureText } from '#engine/parse';
import { areaIndex, copyName, problemPath } from '../../../renderer/src/components/log-configs/log-config-paths.ts';
import {
  engineDetail,
  logConfigProblemDetail,
  parseFailureDetail,
  renderDetail,
  type Detail,
} from '../../../renderer/src/lib/engine-detail.ts';
import { formatMessage } from '../../../renderer/src/lib/message-format.ts';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';

function say(detail: Detail | null, locale: 'en' | 'zh-CN'): string | null {
  const catalogue: Record<string, string> = locale === 'en' ? en : zhCN;
  if (!detail) return null;
  return renderDetail(detail, (key, params) =>
    Object.hasOwn(catalogue, key) ? formatMessage(catalogue[key]!, params, locale) : null,
  );
}

describe('log configuration paths', () => {
  it('spells a field area the engine’s way whichever way it came', () => {
    expect(problemPath('fields.2.regex')).toBe('fields[2].regex');
    expect(problemPath('fields[2].regex')).toBe('fields[2].regex');
    expect(problemPath('fields')).toBe('fields');
    expect(problemPath('time.format.custom')).toBe('time.format.custom');
    expect(areaIndex('fields.3.name')).toBe(3);
    expect(areaIndex('name')).toBeNull();
  });

  it('names a copy "<name> copy" within the name limit', () => {
    expect(copyName('sshd', 64)).toBe('sshd copy');
    expect(copyName('x'.repeat(64), 64)).toHaveLength(64);
  });
});

describe('log configuration refusals in the console’s languages', () => {
  it('words every configuration problem code in both languages', () => {
    for (const code of CONFIG_PROBLEM_CODES) {
      const params: Record<string, string> = code === 'regex_invalid' ? { kind: 'unterminated_group', error: 'x' } : {};
      expect(say(logConfigProblemDetail(code, params), 'en'), code).toBeTruthy();
      expect(say(logConfigProblemDetail(code, params), 'zh-CN'), code).toBeTruthy();
    }
  });

  it('reads the code an engine problem carries in params.code', () => {
    const detail = engineDetail('fields[0].regex: uses a construct that cannot run in linear time', 'fields[0].regex', {
      code: 'regex_not_linear',
    });
    expect(say(detail, 'en')).toContain('linear time');
    const locked = engineDetail('fields: existing field areas cannot change', 'fields', { code: 'fields_locked' });
    expect(say(locked, 'zh-CN')).toBe('编辑时不能修改已有的字段配置区，也不能新增');
  });

  it('words every parse failure, a missing required field as spec 7 says it', () => {
    for (const code of PARSE_FAILURE_CODES) {
      expect(say(parseFailureDetail(code, 'src_ip'), 'en'), code).toBeTruthy();
      expect(say(parseFailureDetail(code, 'src_ip'), 'zh-CN'), code).toBeTruthy();
    }
    expect(say(parseFailureDetail('required_field_missing', 'src_ip'), 'zh-CN')).toBe('必要字段不允许为空: src_ip');
    expect(parseFailureDetail('something_new', null)).toBeNull();
  });

  it('words a failed record with its parameters as the engine words it, in both languages', () => {
    const samples: Record<string, Record<string, string | number>> = {
      line_empty: {},
      line_too_long: { maximum: 1_048_576, length: 2_000_000 },
      line_binary: {},
      json_malformed: { detail: 'Unexpected token } in JSON at position 9' },
      json_not_object: { kind: 'array' },
      required_field_missing: { field: 'src_ip' },
      time_missing: { source: 'timestamp' },
      time_format_mismatch: { text: 'Nov 31 25:00:00', format: 'MMM DD hh:mm:ss' },
      time_invalid: { text: '2026-02-30 10:00:00' },
      parse_error: { detail: 'stack overflow' },
    };
    for (const code of PARSE_FAILURE_CODES) {
      const params = samples[code]!;
      const field = code === 'required_field_missing' ? 'src_ip' : null;
      for (const locale of ['en', 'zh-CN'] as const) {
        // Chinese names a JSON kind in Chinese on the engine side only: the console shows the kind as sent.
        if (code === 'json_not_object' && locale === 'zh-CN') continue;
        expect(say(parseFailureDetail(code, field, params), locale), `${code} ${locale}`).toBe(
          parseFailureText({ code, params }, locale),
        );
      }
    }
  });
});
