import { describe, expect, it } from 'vitest';
import { candidateFields, checkEvent, type EventDefinition } from '#engine/events';
import {
  ADMIN,
  average,
  cep,
  combined,
  count,
  distinct,
  LOGIN_POST,
  NOT_FOUND,
  simple,
  source,
  when,
} from './fixtures.ts';

function problems(def: EventDefinition, others: EventDefinition[] = []) {
  const events = new Map(others.map((e) => [e.id, e]));
  return checkEvent(def, { events, source }).map((p) => ({ path: p.path, code: p.code, params: p.params }));
}

describe('candidateFields', () => {
  it('gives the fields common to every source, in the first source’s order', () => {
    expect(candidateFields(['access', 'app'], source)).toEqual(['status', 'request_time']);
    expect(candidateFields(['app'], source)).toEqual(['client', 'user', 'action', 'status', 'request_time']);
  });

  it('leaves out unknown sources and has nothing for no source', () => {
    expect(candidateFields(['app', 'gone'], source)).toEqual(candidateFields(['app'], source));
    expect(candidateFields([], source)).toEqual([]);
  });
});

describe('checkEvent', () => {
  it('finds nothing wrong with sound events of every kind', () => {
    const others = [NOT_FOUND, LOGIN_POST, ADMIN];
    const sound: EventDefinition[] = [
      NOT_FOUND,
      count('c', 10, 60, { triggerEvent: 'not-found' }),
      distinct('d', 'request', 10, 60),
      average('v', 'request_time', '>', 2, 60),
      cep(
        'p',
        'loose',
        [
          ['not-found', 1, 3],
          ['login-post', 1, 1],
        ],
        60,
      ),
      combined('m', '(a & b) | !c', [
        ['a', 'not-found'],
        ['b', 'c'],
        ['c', 'admin'],
      ]),
    ];
    for (const def of sound) expect(problems(def, [...others, count('c', 10, 60)]), def.id).toEqual([]);
  });

  it('reports every problem of a simple event at once, each at its path', () => {
    const def = simple('s', 'a & x', [
      when('a', 'status', 'exact', 404),
      when('b', 'no_such_field', 'exact', 'x'),
      when('a', 'request', 'regex', '(a)\\1'),
      when('c', 'request', 'regex', '(unclosed'),
    ]);
    expect(problems(def)).toEqual([
      { path: 'conditions[1].field', code: 'field_unknown', params: { field: 'no_such_field' } },
      { path: 'conditions[2].label', code: 'label_duplicate', params: { label: 'a' } },
      { path: 'conditions[2].value', code: 'regex_invalid', params: { reason: 'not_linear' } },
      {
        path: 'conditions[3].value',
        code: 'regex_invalid',
        params: { reason: 'regex_invalid', kind: 'unterminated_group' },
      },
      { path: 'relation', code: 'relation_unknown_label', params: { label: 'x', position: 4 } },
      { path: 'conditions[1].label', code: 'condition_unused', params: { label: 'b' } },
      { path: 'conditions[3].label', code: 'condition_unused', params: { label: 'c' } },
    ]);
  });

  it('reports a relation that does not parse with its position', () => {
    expect(problems(simple('s', '(a', [when('a', 'status', 'exact', 404)]))).toEqual([
      { path: 'relation', code: 'relation_unbalanced', params: { position: 0 } },
    ]);
    expect(problems(simple('s', ' ', [when('a', 'status', 'exact', 404)]))).toEqual([
      { path: 'relation', code: 'relation_empty', params: undefined },
    ]);
  });

  it('checks fields against the fields common to all sources', () => {
    const def = simple('s', 'a & b', [when('a', 'status', 'exact', 404), when('b', 'user_agent', 'regex', 'x')], {
      sources: ['access', 'app'],
    });
    expect(problems(def)).toEqual([
      { path: 'conditions[1].field', code: 'field_unknown', params: { field: 'user_agent' } },
    ]);
  });

  it('reports unknown and repeated sources, and an enabled event without one', () => {
    expect(
      problems(simple('s', 'a', [when('a', 'status', 'exact', 404)], { sources: ['access', 'gone', 'access'] })),
    ).toEqual([
      { path: 'sources[1]', code: 'source_unknown', params: { id: 'gone' } },
      { path: 'sources[2]', code: 'source_duplicate', params: { id: 'access' } },
    ]);
    expect(problems(simple('s', 'a', [when('a', 'status', 'exact', 404)], { sources: [] }))).toEqual([
      { path: 'sources', code: 'sources_required', params: undefined },
    ]);
    expect(problems(simple('s', 'a', [when('a', 'status', 'exact', 404)], { sources: [], enabled: false }))).toEqual(
      [],
    );
  });

  it('checks the trigger event: it exists, is simple and reads only this event’s sources', () => {
    const appOnly = simple('app-only', 'a', [when('a', 'status', 'exact', 500)], { sources: ['app'] });
    const others = [NOT_FOUND, appOnly, count('other-count', 1, 60)];
    expect(problems(count('c', 1, 60, { triggerEvent: 'gone' }), others)).toEqual([
      { path: 'triggerEvent', code: 'event_unknown', params: { id: 'gone' } },
    ]);
    expect(problems(count('c', 1, 60, { triggerEvent: 'other-count' }), others)).toEqual([
      { path: 'triggerEvent', code: 'event_not_simple', params: { id: 'other-count', kind: 'count' } },
    ]);
    expect(problems(count('c', 1, 60, { triggerEvent: 'app-only' }), others)).toEqual([
      { path: 'triggerEvent', code: 'trigger_event_sources', params: { id: 'app-only' } },
    ]);
    expect(problems(count('c', 1, 60, { triggerEvent: 'app-only', sources: ['access', 'app'] }), others)).toEqual([]);
  });

  it('checks that every source maps a field to the trigger object', () => {
    expect(problems(count('c', 1, 60, { object: 'user', sources: ['access', 'app'] }))).toEqual([
      { path: 'object', code: 'object_unmapped', params: { object: 'user', source: 'access' } },
    ]);
  });

  it('checks the distinct and mean object fields', () => {
    expect(problems(distinct('d', 'nope', 1, 60))).toEqual([
      { path: 'field', code: 'field_unknown', params: { field: 'nope' } },
    ]);
    expect(problems(average('v', 'nope', '>', 1, 60))).toEqual([
      { path: 'field', code: 'field_unknown', params: { field: 'nope' } },
    ]);
  });

  it('checks each CEP step', () => {
    const others = [
      NOT_FOUND,
      count('busy', 1, 60),
      simple('app-only', 'a', [when('a', 'status', 'exact', 1)], { sources: ['app'] }),
    ];
    const def = cep(
      'p',
      'strict',
      [
        ['not-found', 1, 1],
        ['gone', 1, 1],
        ['busy', 1, 1],
        ['app-only', 1, 1],
      ],
      60,
    );
    expect(problems(def, others)).toEqual([
      { path: 'steps[1].event', code: 'event_unknown', params: { id: 'gone' } },
      { path: 'steps[2].event', code: 'event_not_simple', params: { id: 'busy', kind: 'count' } },
      { path: 'steps[3].event', code: 'step_sources', params: { id: 'app-only' } },
    ]);
  });

  it('checks combined members: single events, identical sources, labels and the relation', () => {
    const others = [
      NOT_FOUND,
      combined('inner', 'a', [['a', 'not-found']]),
      simple('both', 'a', [when('a', 'status', 'exact', 1)], { sources: ['access', 'app'] }),
    ];
    const def = combined('m', 'a & (b | z)', [
      ['a', 'not-found'],
      ['b', 'inner'],
      ['c', 'both'],
      ['a', 'gone'],
    ]);
    expect(problems(def, others)).toEqual([
      { path: 'members[1].event', code: 'member_not_single', params: { id: 'inner' } },
      { path: 'members[2].event', code: 'member_sources', params: { id: 'both' } },
      { path: 'members[3].label', code: 'label_duplicate', params: { label: 'a' } },
      { path: 'members[3].event', code: 'event_unknown', params: { id: 'gone' } },
      { path: 'relation', code: 'relation_unknown_label', params: { label: 'z', position: 9 } },
      { path: 'members[2].label', code: 'member_unused', params: { label: 'c' } },
    ]);
  });

  it('checks an event against its own new definition, not the stored one', () => {
    const stored = simple('s', 'a', [when('a', 'status', 'exact', 404)]);
    const edited = count('s', 1, 60, { triggerEvent: 's' });
    expect(problems(edited, [stored])).toEqual([
      { path: 'triggerEvent', code: 'event_not_simple', params: { id: 's', kind: 'count' } },
    ]);
  });

  it('words every problem in English naming the thing', () => {
    const [problem] = checkEvent(distinct('d', 'nope', 1, 60), { events: new Map(), source });
    expect(problem?.message).toContain('"nope"');
  });
});
