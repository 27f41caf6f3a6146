import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '#engine/config-store';
import { RulesService } from '#engine/rules';
import { ManualClock, cryptoRandom, RampartError, ruleInputSchema, type Edition, type RuleInput } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-rules-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A store with two sites and one enabled and one disabled event. */
async function service(edition: Edition = 'A'): Promise<RulesService> {
  const store = await ConfigStore.open(dir, clock);
  await store.update((doc) => {
    for (const id of ['site_1', 'site_2'])
      doc.sites.push({ ...(doc.sites[0] ?? {}), id, name: id } as (typeof doc.sites)[number]);
    const [first, second] = doc.events;
    doc.events = [
      { ...first!, id: 'evt_on', name: 'on', enabled: true },
      { ...second!, id: 'evt_off', name: 'off', enabled: false },
    ];
  });
  return new RulesService({ store: store.slice(['rules', 'events', 'sites']), clock, random: cryptoRandom, edition });
}

const rule = (over: Partial<RuleInput> = {}): RuleInput =>
  ruleInputSchema.parse({
    name: 'r',
    description: '',
    siteId: 'site_1',
    events: ['evt_on'],
    action: 'block',
    target: 'ip',
    durationSeconds: 600,
    ...over,
  });

async function failure(p: Promise<unknown>): Promise<RampartError> {
  try {
    await p;
  } catch (e) {
    return e as RampartError;
  }
  throw new Error('accepted');
}

const priorities = (rules: RulesService, siteId = 'site_1') =>
  Object.fromEntries(rules.list(siteId).map((r) => [r.name, r.priority]));

describe('event-based rules', () => {
  it('spec 2.5: A=1, B=2, C=3 plus a new D=2 gives A=1, D=2, B=3, C=4', async () => {
    const rules = await service();
    await rules.create(rule({ name: 'A', priority: 1 }));
    await rules.create(rule({ name: 'B', priority: 2 }));
    await rules.create(rule({ name: 'C', priority: 3 }));
    await rules.create(rule({ name: 'D', priority: 2 }));
    expect(priorities(rules)).toEqual({ A: 1, D: 2, B: 3, C: 4 });
  });

  it('a block rule gets priority 1 by default and pushes the others up', async () => {
    const rules = await service();
    await rules.create(rule({ name: 'first' }));
    await rules.create(rule({ name: 'second' }));
    expect(priorities(rules)).toEqual({ second: 1, first: 2 });
  });

  it('a free priority moves nobody, and priorities are unique per site', async () => {
    const rules = await service();
    await rules.create(rule({ name: 'A', priority: 1 }));
    await rules.create(rule({ name: 'B', priority: 5 }));
    await rules.create(rule({ name: 'other', siteId: 'site_2', priority: 1 }));
    expect(priorities(rules)).toEqual({ A: 1, B: 5 });
    expect(priorities(rules, 'site_2')).toEqual({ other: 1 });
  });

  it('editing a rule onto a taken priority shifts the others; keeping its own moves nobody', async () => {
    const rules = await service();
    const a = await rules.create(rule({ name: 'A', priority: 1 }));
    await rules.create(rule({ name: 'B', priority: 2 }));
    const c = await rules.create(rule({ name: 'C', priority: 3 }));
    await rules.update(c.id, rule({ name: 'C', priority: 1 }));
    expect(priorities(rules)).toEqual({ C: 1, A: 2, B: 3 });
    await rules.update(a.id, rule({ name: 'A renamed', priority: 2 }));
    expect(priorities(rules)).toEqual({ C: 1, 'A renamed': 2, B: 3 });
  });

  it('a rule with no action takes the edition minimum: -1 in A, 0 in B', async () => {
    expect((await (await service('A')).create(rule({ action: 'none', priority: 7 }))).priority).toBe(-1);
    await rm(dir, { recursive: true, force: true });
    expect((await (await service('B')).create(rule({ action: 'none' }))).priority).toBe(0);
  });

  it('refuses a block rule below priority 1, unknown or disabled events, an unknown site and a taken name', async () => {
    const rules = await service();
    const low = await failure(rules.create(rule({ priority: 0 })));
    expect([low.code, low.field, low.params.code]).toEqual(['VALIDATION_FAILED', 'priority', 'priority_block_minimum']);
    const bad = await failure(rules.create(rule({ siteId: 'nope', events: ['evt_off', 'missing'] })));
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.problems.map((p) => [p.field, p.params?.code])).toEqual([
      ['siteId', 'site_unknown'],
      ['events[0]', 'event_disabled'],
      ['events[1]', 'event_unknown'],
    ]);
    await rules.create(rule({ name: 'Same' }));
    expect((await failure(rules.create(rule({ name: ' same ' })))).code).toBe('NAME_TAKEN');
  });

  it('copies a rule under a free name and deletes one', async () => {
    const rules = await service();
    const original = await rules.create(rule({ name: 'Brute force' }));
    const copy = await rules.copy(original.id);
    expect(copy.name).toBe('Brute force copy');
    expect((await rules.copy(original.id)).name).toBe('Brute force copy 2');
    await rules.remove(copy.id);
    expect(
      rules
        .list()
        .map((r) => r.name)
        .sort(),
    ).toEqual(['Brute force', 'Brute force copy 2']);
    expect((await failure(rules.remove('missing'))).code).toBe('NOT_FOUND');
  });
});
