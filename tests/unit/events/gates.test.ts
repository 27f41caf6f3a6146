import { describe, expect, it } from 'vitest';
import { EventEngine, parseRelation, type EventDefinition } from '#engine/events';
import type { EventConditionInput } from '#engine/shared';
import { gateOf } from '../../../engine/events/plan.ts';
import { ACCESS_LOG, at, count, simple, source, when } from './fixtures.ts';

/** The gate of a relation over conditions given as label -> [field, exact value] (others: not exact). */
function gate(relation: string, exact: Record<string, [string, string] | null>) {
  const parsed = parseRelation(relation, Object.keys(exact));
  if (!parsed.ok) throw new Error(parsed.problem.message);
  const fields = [...new Set(Object.values(exact).flatMap((e) => (e === null ? [] : [e[0]])))];
  const found = gateOf(parsed.value, (label) => {
    const e = exact[label];
    return e ? { field: fields.indexOf(e[0]), value: e[1] } : null;
  });
  return found === null ? null : { field: fields[found.field], values: [...found.values].sort() };
}

describe('Simple-event gates: the exact values a record must have for an event to match', () => {
  it('gates a lone exact condition on its value, and nothing else on its own', () => {
    expect(gate('a', { a: ['status', '404'] })).toEqual({ field: 'status', values: ['404'] });
    expect(gate('a', { a: null })).toBeNull();
    expect(gate('!a', { a: ['status', '404'] })).toBeNull();
  });

  it('takes the narrowest gate of an and, and the union of an or on one field', () => {
    const conditions: Record<string, [string, string] | null> = {
      a: ['status', '401'],
      b: ['status', '403'],
      c: ['guard_status', 'BOT'],
      d: null,
    };
    expect(gate('(a | b) & c', conditions)).toEqual({ field: 'guard_status', values: ['BOT'] });
    expect(gate('(a | b) & d', conditions)).toEqual({ field: 'status', values: ['401', '403'] });
    expect(gate('a | b', conditions)).toEqual({ field: 'status', values: ['401', '403'] });
  });

  it('has no gate for an or that crosses fields or has an operand without one', () => {
    const conditions: Record<string, [string, string] | null> = {
      a: ['status', '401'],
      c: ['guard_status', 'BOT'],
      d: null,
    };
    expect(gate('a | c', conditions)).toBeNull();
    expect(gate('a | d', conditions)).toBeNull();
    expect(gate('a | !a', conditions)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: the indexed evaluation of `observe` against the plain one of `explain` (each
// condition tested on its own, the relation evaluated as written), on random events and records.

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const STATUSES = [200, 301, 401, 403, 404, 500, '404', '200', ' 404', null, undefined, true];
const GUARDS = ['PASS', 'BOT', 'TOKEN_MISS', 'BLOCKED_BY_WAF', '', undefined, 7];
const COUNTRIES = ['US', 'DE', 'CN', 'RU', ''];
const REQUESTS = ['GET / HTTP/1.1', 'POST /login HTTP/1.1', 'GET /wp-login.php HTTP/1.1', 'GET /.env HTTP/1.0', ''];
const REGEXES = ['^POST ', 'wp-', '\\.env', 'HTTP/1\\.0$', '^$'];
const TIMES = [0, 0.2, 1.5, 3, '2.5', 'slow', null];

type Field = 'status' | 'guard_status' | 'ip_country' | 'request' | 'request_time';
const POOLS: Record<Field, readonly unknown[]> = {
  status: STATUSES,
  guard_status: GUARDS,
  ip_country: COUNTRIES,
  request: REQUESTS,
  request_time: TIMES,
};
const FIELDS = Object.keys(POOLS) as Field[];

function randomCondition(rand: () => number, label: string): EventConditionInput {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const field = pick(FIELDS);
  const r = rand();
  if (r < 0.55) {
    const value = pick(POOLS[field].filter((v) => typeof v === 'string' || typeof v === 'number'));
    return when(label, field, 'exact', String(value));
  }
  if (r < 0.8) return when(label, field, 'regex', pick(REGEXES));
  return when(label, field, pick(['>', '>=', '=', '<', '<='] as const), pick([0, 1, 2, 404, 401]));
}

function randomRelation(rand: () => number, labels: readonly string[], depth: number): string {
  const r = rand();
  if (depth === 0 || r < 0.35) return labels[Math.floor(rand() * labels.length)]!;
  if (r < 0.45) return `!${randomRelation(rand, labels, depth - 1)}`;
  const op = rand() < 0.5 ? ' & ' : ' | ';
  const operands = Array.from({ length: 2 + Math.floor(rand() * 2) }, () => randomRelation(rand, labels, depth - 1));
  return `(${operands.join(op)})`;
}

function randomRecord(rand: () => number, i: number): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const record: Record<string, unknown> = { src_ip: `10.0.0.${i % 7}` };
  for (const field of FIELDS) {
    const value = pick(POOLS[field]);
    if (value === undefined) continue;
    // Intelligence fields sit under _intelligence_result on access records.
    if (field === 'ip_country') record._intelligence_result = { intel: { ip_country: value } };
    else record[field] = value;
  }
  return record;
}

describe('Simple-event gates: differential against the plain evaluation', () => {
  it('fires exactly the enabled simple events whose conditions, tested one by one, satisfy the relation', () => {
    for (let round = 0; round < 8; round++) {
      const rand = prng(1000 + round);
      const events: EventDefinition[] = [];
      for (let e = 0; e < 40; e++) {
        const labels = ['a', 'b', 'c', 'd', 'e'].slice(0, 1 + Math.floor(rand() * 5));
        const conditions = labels.map((label) => randomCondition(rand, label));
        const relation = randomRelation(rand, labels, 3);
        events.push(simple(`s${e}`, relation, conditions, { enabled: rand() < 0.85 }));
      }
      // Windowed events read simple events as triggers, gated or not: they must see the same outcomes.
      events.push(count('c0', 3, 60, { triggerEvent: 's0' }), count('c1', 2, 60, { triggerEvent: 's1' }));
      const engine = new EventEngine();
      expect(engine.configure(events, source).skipped).toEqual([]);
      // The plain evaluation (explain), and an engine where no simple event is an output, so the
      // windowed events read their triggers without any gate in play.
      const reference = new EventEngine();
      reference.configure(events, source);
      const ungated = new EventEngine();
      ungated.configure(
        events.map((e) => (e.kind === 'simple' ? { ...e, enabled: false } : e)),
        source,
      );
      for (let i = 0; i < 400; i++) {
        const record = randomRecord(rand, i);
        const firings = engine.observe(ACCESS_LOG, record, at(i));
        const fired = firings.filter((f) => f.kind === 'simple').map((f) => f.eventId);
        const expected = events
          .filter((e) => e.kind === 'simple' && e.enabled)
          .filter((e) => reference.explain(e.id, record)!.find((row) => row.label === e.id)!.matched)
          .map((e) => e.id);
        expect(fired, JSON.stringify({ round, i, record })).toEqual(expected);
        const windowed = firings.filter((f) => f.kind === 'count').map((f) => f.eventId);
        expect(windowed).toEqual(ungated.observe(ACCESS_LOG, record, at(i)).map((f) => f.eventId));
      }
    }
  });
});
