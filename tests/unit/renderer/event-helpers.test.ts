import { describe, expect, it } from 'vitest';
import { presetEvents } from '#engine/config-store';
import { formPath } from '../../../renderer/src/components/events/event-paths.ts';
import { spanOf } from '../../../renderer/src/lib/log-search-state.ts';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)[},]/g)].map((m) => m[1]!).sort();

describe('event form paths', () => {
  it('spells a refusal’s path the way the form names its inputs, from zod’s or the engine’s spelling', () => {
    expect(formPath('conditions.1.value')).toBe('conditions[1].value');
    expect(formPath('conditions[1].value')).toBe('conditions[1].value');
    expect(formPath('steps.0.max')).toBe('steps[0].max');
    expect(formPath('members[2].event')).toBe('members[2].event');
  });

  it('puts a label’s problem on its area, and every source’s or window part’s on the whole input', () => {
    expect(formPath('conditions[1].label')).toBe('conditions[1]');
    expect(formPath('members.0.label')).toBe('members[0]');
    expect(formPath('sources[3]')).toBe('sources');
    expect(formPath('window.value')).toBe('window');
    expect(formPath('relation')).toBe('relation');
  });
});

describe('time ranges of a dry run', () => {
  const now = Date.UTC(2026, 10, 27, 8, 0, 0);

  it('turns a quick range into the milliseconds it covers now', () => {
    expect(spanOf({ last: '15m' }, now)).toEqual({ from: now - 15 * 60_000, to: now });
    expect(spanOf({ last: '7d' }, now)).toEqual({ from: now - 7 * 86_400_000, to: now });
    expect(spanOf({ all: true }, now)).toEqual({ from: 0, to: now });
    expect(spanOf({ from: 1, to: 2 }, now)).toEqual({ from: 1, to: 2 });
  });
});

describe('the console’s texts of events', () => {
  it('knows each preset event by the name and description the engine ships, in both languages', () => {
    for (const preset of presetEvents(0)) {
      expect(en[`preset.${preset.id}.name` as keyof typeof en], preset.id).toBe(preset.name);
      expect(en[`preset.${preset.id}.description` as keyof typeof en], preset.id).toBe(preset.description);
      expect(zhCN[`preset.${preset.id}.name` as keyof typeof en], preset.id).toMatch(/\p{Script=Han}/u);
    }
  });

  it('says each problem with the same parameters in Chinese as in English', () => {
    const keys = Object.keys(en).filter((k) => k.startsWith('problem.') || k.startsWith('error.IN_USE'));
    expect(keys.length).toBeGreaterThan(20);
    for (const key of keys) {
      expect(placeholders(zhCN[key as keyof typeof en]), key).toEqual(placeholders(en[key as keyof typeof en]));
    }
  });
});
