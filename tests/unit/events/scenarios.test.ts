import { describe, expect, it } from 'vitest';
import { EventEngine } from '#engine/events';
import { ACCESS_LOG, at, source, T0 } from './fixtures.ts';
import { SCENARIO_GROUPS } from './scenarios/index.ts';

describe.each(Object.entries(SCENARIO_GROUPS))('%s scenarios', (_group, scenarios) => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const engine = new EventEngine(scenario.options);
    const report = engine.configure(scenario.events, source);
    expect(report.skipped).toEqual([]);
    const fired: { t: number; event: string; key: string | null }[] = [];
    for (const { t, log, record } of scenario.records) {
      for (const f of engine.observe(log ?? ACCESS_LOG, record, at(t))) {
        fired.push({ t: (f.at - T0) / 1000, event: f.eventId, key: f.key });
      }
    }
    expect(fired).toEqual(scenario.expect);
  });
});
