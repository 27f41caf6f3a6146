import { describe, expect, it } from 'vitest';
import { EventEngine, type EventDefinition } from '#engine/events';
import { ACCESS_LOG, at, average, count, distinct, hit, source } from './fixtures.ts';

/**
 * Windows of up to 64 s have 1 s buckets. A plain model of the README's semantics, kept as the
 * list of a key's records in the window: after adding a record the statistic is compared with the
 * threshold; a firing clears the key's window and mutes it for one window (records still count).
 * The engine keeps small keys in its slab's regions, busier ones in pool lists or objects, and
 * moves them back and forth; whatever the form, it must fire where this model does.
 */
interface Model {
  id: string;
  window: number;
  value: (record: Record<string, unknown>) => string | number | null;
  stat: (entries: { value: string | number }[]) => number;
  fires: (stat: number) => boolean;
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('Window events: differential against a plain model of the window', () => {
  it('fires where the model fires, for keys small and busy, over count, distinct and average', () => {
    const definitions: EventDefinition[] = [
      count('count', 10, 30),
      distinct('distinct', 'request', 10, 40),
      distinct('distinct-wide', 'request', 30, 60),
      // Keys remember only threshold + 1 values: every comparator must still decide as the model.
      distinct('distinct-equal', 'request', 5, 40, { comparator: '=' }),
      distinct('distinct-below', 'request', 3, 30, { comparator: '<' }),
      average('average', 'request_time', '>', 2.2, 20),
    ];
    const models: Model[] = [
      { id: 'count', window: 30, value: () => 0, stat: (e) => e.length, fires: (s) => s >= 10 },
      {
        id: 'distinct',
        window: 40,
        value: (r) => r.request as string,
        stat: (e) => new Set(e.map((x) => x.value)).size,
        fires: (s) => s >= 10,
      },
      {
        id: 'distinct-wide',
        window: 60,
        value: (r) => r.request as string,
        stat: (e) => new Set(e.map((x) => x.value)).size,
        fires: (s) => s >= 30,
      },
      {
        id: 'distinct-equal',
        window: 40,
        value: (r) => r.request as string,
        stat: (e) => new Set(e.map((x) => x.value)).size,
        fires: (s) => s === 5,
      },
      {
        id: 'distinct-below',
        window: 30,
        value: (r) => r.request as string,
        stat: (e) => new Set(e.map((x) => x.value)).size,
        fires: (s) => s < 3,
      },
      {
        id: 'average',
        window: 20,
        value: (r) => r.request_time as number,
        stat: (e) => e.reduce((sum, x) => sum + (x.value as number), 0) / e.length,
        fires: (s) => s > 2.2,
      },
    ];
    for (let round = 0; round < 6; round++) {
      const rand = prng(77 + round);
      const engine = new EventEngine();
      expect(engine.configure(definitions, source).skipped).toEqual([]);
      const state = new Map<string, { entries: { second: number; value: string | number }[]; mute: number }>();
      const firings = new Map<string, number>();
      let second = 0;
      for (let i = 0; i < 3000; i++) {
        // Bursts and gaps, so keys go busy, quiet and back.
        second += rand() < 0.95 ? (rand() < 0.85 ? 0 : 1) : Math.floor(rand() * 20);
        const ip = `10.0.0.${Math.floor(rand() ** 2 * 6)}`;
        const record = hit(ip, {
          request: `GET /p/${Math.floor(rand() * (rand() < 0.5 ? 6 : 200))} HTTP/1.1`,
          // Quarters: sums are exact, so the model's order of addition cannot change a comparison.
          request_time: Math.floor(rand() * 16) / 4,
        });
        const expected: string[] = [];
        for (const m of models) {
          const key = `${m.id}\u0000${ip}`;
          let s = state.get(key);
          if (s === undefined) state.set(key, (s = { entries: [], mute: -Infinity }));
          const value = m.value(record);
          if (value === null) continue;
          s.entries.push({ second, value });
          s.entries = s.entries.filter((e) => e.second > second - m.window);
          if (m.fires(m.stat(s.entries)) && second >= s.mute) {
            expected.push(m.id);
            s.entries = [];
            s.mute = second + m.window;
          }
        }
        const fired = engine.observe(ACCESS_LOG, record, at(second)).map((f) => f.eventId);
        expect(fired, JSON.stringify({ round, i, ip, second })).toEqual(expected);
        for (const id of fired) firings.set(id, (firings.get(id) ?? 0) + 1);
      }
      // Every event fired often enough for its keys to have gone through fire, mute and refill.
      for (const m of models) expect(firings.get(m.id) ?? 0).toBeGreaterThan(10);
    }
  });
});
