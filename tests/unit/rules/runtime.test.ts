import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore, accessLogConfig } from '#engine/config-store';
import { decodeBlock, type StoredBlock } from '#engine/log-store';
import { BanStore, EventRuntime, EventsService, RulesService, TRIGGER_LOG } from '#engine/rules';
import {
  ManualClock,
  cryptoRandom,
  ruleInputSchema,
  type EventInput,
  type Logger,
  type RuleInput,
} from '#engine/shared';

const silent = {
  warn: () => undefined,
  info: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as Logger;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-runtime-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

type Row = Record<string, unknown> & { _timestamp: number };

/** A log store stand-in: appended records by log, readable as one block per second. */
class MemoryLogs {
  readonly rows = new Map<string, Row[]>();
  append(log: string, record: Row): void {
    const list = this.rows.get(log) ?? [];
    list.push(record);
    this.rows.set(log, list);
  }
  async *blocks(log: string, range: { from: number; to: number }): AsyncGenerator<StoredBlock> {
    await Promise.resolve();
    const bySecond = new Map<number, Row[]>();
    for (const r of this.rows.get(log) ?? []) {
      if (r._timestamp < range.from || r._timestamp >= range.to) continue;
      const second = Math.floor(r._timestamp / 1000) * 1000;
      bySecond.set(second, [...(bySecond.get(second) ?? []), r]);
    }
    for (const [second, rows] of [...bySecond].sort((a, b) => a[0] - b[0])) {
      const text = rows.map((r) => JSON.stringify(r)).join('\n');
      const decoded = decodeBlock(text);
      yield { log, second, seq: 0, text, lines: decoded.lines, record: (row: number) => decoded.record(row) };
    }
  }
}

async function setup(clock: ManualClock, logs = new MemoryLogs()) {
  const store = await ConfigStore.open(dir, clock);
  await store.update((doc) => {
    for (const id of ['site_1', 'site_2']) {
      doc.sites.push({ id, name: id } as (typeof doc.sites)[number]);
      doc.logConfigs.push(accessLogConfig(`log_${id}`, `${id} access log`, id, 0));
    }
  });
  const events = new EventsService({
    store: store.slice(['events', 'rules', 'logConfigs']),
    clock,
    random: cryptoRandom,
  });
  const rules = new RulesService({
    store: store.slice(['rules', 'events', 'sites']),
    clock,
    random: cryptoRandom,
    edition: 'A',
  });
  const bans = new BanStore({ clock });
  const runtime = new EventRuntime({
    events,
    rules,
    bans,
    store: logs,
    history: logs,
    clock,
    logger: silent,
    edition: 'A',
    stateFile: join(dir, 'events-state.json'),
  });
  await runtime.start();
  const event = async (input: Record<string, unknown>) => {
    const created = await events.create({ sources: ['log_site_1'], description: '', ...input } as EventInput);
    await events.setEnabled(created.id, true);
    return created.id;
  };
  const rule = (input: Partial<RuleInput>) =>
    rules.create(
      ruleInputSchema.parse({
        name: 'r',
        siteId: 'site_1',
        action: 'block',
        target: 'ip',
        durationSeconds: 60,
        ...input,
      }),
    );
  /** A live access record of site_1 from `ip`, as the log store hands it to its observer. */
  const request = (ip: string, path = '/login', device = '') => {
    const record: Row = {
      _timestamp: clock.now(),
      log_id: `r${clock.now()}`,
      site_id: 'site_1',
      src_ip: ip,
      fingerprint: device,
      request: `POST ${path} HTTP/1.1`,
      status: 401,
    };
    logs.append('access:site_1', record);
    runtime.observe('access:site_1', record);
  };
  return { store, events, rules, bans, runtime, logs, event, rule, request };
}

const count = (name: string, threshold: number, object = 'ip') => ({
  kind: 'count',
  name,
  triggerEvent: null,
  object,
  window: { value: 1, unit: 'minute' },
  comparator: '>=',
  threshold,
});

describe('the event runtime', () => {
  it('per site only the block rule with the lowest priority value acts; the others are recorded', async () => {
    const clock = new ManualClock();
    const { event, rule, request, bans, logs } = await setup(clock);
    const fired = await event(count('three requests', 3));
    await rule({ name: 'second', events: [fired], priority: 2, target: 'device' });
    await rule({ name: 'first', events: [fired], priority: 1 });
    await rule({ name: 'log only', events: [fired], action: 'none' });
    await rule({ name: 'other site', events: [fired], siteId: 'site_2' });
    for (let i = 0; i < 3; i++) request('203.0.113.9', '/login', 'dev-1');
    expect(
      bans
        .list({ limit: 10 })
        .bans.map((b) => [b.siteId, b.object, b.value, b.origin.kind === 'rule' && b.origin.ruleName]),
    ).toEqual(
      expect.arrayContaining([
        ['site_1', 'ip', '203.0.113.9', 'first'],
        ['site_2', 'ip', '203.0.113.9', 'other site'],
      ]),
    );
    expect(bans.list({ limit: 10 }).total).toBe(2);
    const trigger = logs.rows.get(TRIGGER_LOG)!;
    expect(trigger).toHaveLength(1);
    expect(String(trigger[0]!.triggered_rule_names).split(',').sort()).toEqual([
      'first',
      'log only',
      'other site',
      'second',
    ]);
    expect(trigger[0]).toMatchObject({ action: 'block', trigger_object: 'ip', trigger_value: '203.0.113.9' });
  });

  it('a rule whose target the record lacks bans nothing and says so', async () => {
    const clock = new ManualClock();
    const { event, rule, request, bans, logs } = await setup(clock);
    const fired = await event(count('two requests', 2));
    await rule({ name: 'ban device', events: [fired], target: 'device' });
    request('203.0.113.9');
    request('203.0.113.9');
    expect(bans.list({ limit: 10 }).total).toBe(0);
    expect(logs.rows.get(TRIGGER_LOG)![0]).toMatchObject({ action: 'none', banned: '' });
  });

  it('window state survives a restart, and after a crash the stored records since the last save are replayed', async () => {
    const clock = new ManualClock();
    const first = await setup(clock);
    const fired = await first.event(count('five requests', 5));
    await first.rule({ name: 'ban', events: [fired] });
    first.request('198.51.100.1');
    first.request('198.51.100.1');
    await first.runtime.saveState();
    clock.advance(1000);
    // Two more arrive and are stored, then the engine dies without saving.
    first.request('198.51.100.1');
    first.request('198.51.100.1');
    await first.store.update(() => undefined);

    clock.advance(1000);
    const second = await setup(clock, first.logs);
    expect(second.runtime.counts.replayed).toBe(2);
    expect(second.bans.list({ limit: 10 }).total).toBe(0);
    second.request('198.51.100.1');
    expect(second.bans.list({ limit: 10 }).bans.map((b) => b.value)).toEqual(['198.51.100.1']);
  });

  it('a save spread over event-loop turns holds the state of its start; what arrives meanwhile is replayed after a crash', async () => {
    const clock = new ManualClock();
    const first = await setup(clock);
    const fired = await first.event(count('five requests', 5));
    await first.rule({ name: 'ban', events: [fired] });
    // Enough keys that the snapshot takes several slices.
    for (let i = 0; i < 30_000; i++) first.request(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    first.request('198.51.100.3');
    first.request('198.51.100.3');
    clock.advance(1000);
    let saved = false;
    const saving = first.runtime.saveState().then(() => (saved = true));
    let turns = 0;
    while (!saved) {
      await new Promise((resolve) => setImmediate(resolve));
      // Two more requests while the save is under way: after its start, so not in what it saves.
      if (turns++ < 2) {
        clock.advance(10);
        first.request('198.51.100.3');
      }
    }
    await saving;
    expect(turns).toBeGreaterThan(2);
    await first.store.update(() => undefined);

    // A crash: the restart replays the two requests; the window holds four, not six.
    clock.advance(1000);
    const second = await setup(clock, first.logs);
    expect(second.runtime.counts.replayed).toBe(2);
    expect(second.bans.list({ limit: 10 }).total).toBe(0);
    second.request('198.51.100.3');
    expect(second.bans.list({ limit: 10 }).bans.map((b) => b.value)).toEqual(['198.51.100.3']);
  });

  it('a state file of an earlier release, with the snapshot quoted as a string, is read too', async () => {
    const clock = new ManualClock();
    const first = await setup(clock);
    const fired = await first.event(count('five requests', 5));
    await first.rule({ name: 'ban', events: [fired] });
    for (let i = 0; i < 4; i++) first.request('198.51.100.2');
    await first.runtime.saveState();
    const file = join(dir, 'events-state.json');
    const saved = JSON.parse(await readFile(file, 'utf8')) as { version: number; savedAt: number; engine: unknown };
    expect(typeof saved.engine).toBe('object');
    await writeFile(file, JSON.stringify({ ...saved, engine: JSON.stringify(saved.engine) }));

    const second = await setup(clock, first.logs);
    expect(second.runtime.counts.replayed).toBe(0);
    second.request('198.51.100.2');
    expect(second.bans.list({ limit: 10 }).bans.map((b) => b.value)).toEqual(['198.51.100.2']);
  });

  it('records of the trigger log itself are never evaluated', async () => {
    const clock = new ManualClock();
    const { runtime, event, logs } = await setup(clock);
    await event(count('anything', 1));
    runtime.observe(TRIGGER_LOG, { _timestamp: clock.now(), src_ip: '1.2.3.4' });
    expect(logs.rows.get(TRIGGER_LOG)).toBeUndefined();
  });
});
