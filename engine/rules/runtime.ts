import { open, rename, readFile } from 'node:fs/promises';
import type { RuleRecord } from '#engine/config-store';
import { EventEngine, type Firing, type KeyTarget } from '#engine/events';
import { SECOND, type Clock, type Edition, type Logger } from '#engine/shared';
import type { BanStore } from './bans.ts';
import type { EventsService } from './events-service.ts';
import type { RulesService } from './rules-service.ts';
import type { Notifier } from './notifier.ts';
import { readInTimeOrder, type DryRunStore } from './dry-run.ts';

/** The trigger log (spec 1.2): one record per fired event, with the rules it fired. */
export const TRIGGER_LOG = 'trigger';

/**
 * Expired bans and threat-store entries are freed every second, at most this many at a time: a mass
 * expiry is spread over seconds (a couple of milliseconds each) instead of stalling the verdict for
 * all of them at once, and expiry itself is exact whatever the sweep. Memory stays bounded while
 * fewer than 2,000 bans a second are made.
 */
const BAN_SWEEP_LIMIT = 2_000;

/** The part of the log store the runtime writes to. */
export interface TriggerLogStore {
  append(log: string, record: { _timestamp: number } & Record<string, unknown>): void;
}

export interface EventRuntimeDeps {
  events: EventsService;
  rules: RulesService;
  bans: BanStore;
  store: TriggerLogStore;
  clock: Clock;
  logger: Logger;
  edition: Edition;
  /** Where the evaluator's state is kept between runs (null: not kept, for tests). */
  stateFile: string | null;
  engine?: EventEngine;
  /**
   * The stored logs, to replay what arrived after the last saved state when the engine starts (a
   * crash): windows then count those records again, and nothing they would fire acts twice.
   */
  history?: DryRunStore;
  /** Rule notifications (e-mail, webhook, syslog); none in tests that do not need them. */
  notifier?: Notifier;
  /** How often the state is written (default 30 s). */
  snapshotEveryMs?: number;
}

/** What a fired rule did on a record. */
export interface RuleOutcome {
  rule: RuleRecord;
  /** The ban it made, or why none. */
  ban: { id: string; object: KeyTarget; value: string } | 'no_action' | 'no_target' | 'outranked';
}

const NO_RULES: readonly RuleRecord[] = Object.freeze([]);
/** The longest the event loop is held by one slice of a state snapshot. */
const SNAPSHOT_SLICE_MS = 5;
/** The state file's format: the engine's own snapshot with the time it was taken. */
const STATE_VERSION = 1;

/**
 * Runs the event engine on the live stream and acts on what fires: trigger-log records, rules, bans
 * and threat-store entries. Owns the evaluator's state file (written every 30 s and at stop; after
 * a crash, windows lose what arrived since the last write).
 */
export class EventRuntime {
  readonly #deps: EventRuntimeDeps;
  readonly engine: EventEngine;
  #generation = -1;
  #rulesByEvent = new Map<string, RuleRecord[]>();
  #keyFieldsByLog = new Map<string, Partial<Record<KeyTarget, string>>>();
  #timer: NodeJS.Timeout | null = null;
  #sweepTimer: NodeJS.Timeout | null = null;
  #banSweepTimer: NodeJS.Timeout | null = null;
  #saving: Promise<void> | null = null;
  #seq = 0;
  /** Firings and bans since start, for the console. */
  readonly counts = { firings: 0, ruleFirings: 0, bans: 0, replayed: 0 };

  constructor(deps: EventRuntimeDeps) {
    this.#deps = deps;
    this.engine = deps.engine ?? new EventEngine();
  }

  /**
   * Restores the evaluator's state, replays the records stored since it was saved (after a crash,
   * up to 30 s of them) and starts the periodic work.
   */
  async start(): Promise<void> {
    this.#configure();
    const file = this.#deps.stateFile;
    if (file !== null) {
      let savedAt: number | null = null;
      try {
        const text = await readFile(file, 'utf8');
        const saved = JSON.parse(text) as { version?: unknown; savedAt?: unknown; engine?: unknown };
        // `engine` is the evaluator's snapshot embedded as JSON (a string in files of earlier releases).
        if (saved.version === STATE_VERSION && saved.engine !== undefined && typeof saved.savedAt === 'number') {
          this.engine.restore(saved.engine);
          savedAt = saved.savedAt;
        }
      } catch (error) {
        const code = error instanceof Error && 'code' in error ? String(error.code) : '';
        if (code !== 'ENOENT')
          this.#deps.logger.warn(
            { err: error, file },
            'events: the saved window state could not be read; windows start empty',
          );
      }
      if (savedAt !== null) await this.#replay(savedAt);
      this.#timer = setInterval(() => void this.saveState(), this.#deps.snapshotEveryMs ?? 30 * SECOND);
      this.#timer.unref();
    }
    this.#sweepTimer = setInterval(() => this.engine.sweep(this.#deps.clock.now()), 5 * SECOND);
    this.#sweepTimer.unref();
    this.#banSweepTimer = setInterval(() => this.#deps.bans.sweep(this.#deps.clock.now(), BAN_SWEEP_LIMIT), SECOND);
    this.#banSweepTimer.unref();
  }

  /** Feeds the records stored since `from` to the engine, acting on nothing they fire. */
  async #replay(from: number): Promise<void> {
    const history = this.#deps.history;
    const now = this.#deps.clock.now();
    if (history === undefined || now <= from) return;
    const logs = [...this.#keyFieldsByLog.keys()];
    let replayed = 0;
    const started = performance.now();
    // Records of the saved millisecond itself were counted before the save.
    const cut = await readInTimeOrder(history, logs, { from: from + 1, to: now + 1 }, (log, record, at) => {
      this.engine.observe(log, record, at);
      replayed++;
      return replayed < 5_000_000 && performance.now() - started < 60_000;
    });
    this.counts.replayed = replayed;
    if (replayed > 0 || cut)
      this.#deps.logger.info(
        { replayed, from, cut },
        'events: records stored since the last saved state replayed into the windows',
      );
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    if (this.#banSweepTimer) clearInterval(this.#banSweepTimer);
    this.#timer = this.#sweepTimer = this.#banSweepTimer = null;
    // A save under way holds the state of when it began: the one at stop follows it.
    await this.#saving;
    await this.saveState();
    await this.#deps.notifier?.settle();
  }

  /**
   * Writes the evaluator's state (temporary file, fsync, then rename: a crash leaves the old or the
   * new one). The snapshot is taken in slices of SNAPSHOT_SLICE_MS with the event loop free between
   * them (a state of 800,000 keys takes about 3 s in all), and it is the state of the moment it
   * began: records observed meanwhile change nothing in it, and those after `savedAt` are what a
   * restart replays. One save runs at a time; a call during one gets that one.
   */
  saveState(): Promise<void> {
    const file = this.#deps.stateFile;
    if (file === null) return Promise.resolve();
    this.#saving ??= this.#save(file).finally(() => (this.#saving = null));
    return this.#saving;
  }

  async #save(file: string): Promise<void> {
    try {
      const savedAt = this.#deps.clock.now();
      const taker = this.engine.beginSnapshot();
      while (!taker.step(SNAPSHOT_SLICE_MS)) await new Promise((resolve) => setImmediate(resolve));
      if (!taker.complete) {
        // The events were configured anew while it was taken: the next save takes the new state.
        this.#deps.logger.info({ file }, 'events: the configuration changed while the window state was saved');
        return;
      }
      const temporary = `${file}.tmp`;
      const handle = await open(temporary, 'w', 0o600);
      try {
        // The snapshot is JSON already: embedded as it is, not quoted into a string.
        await handle.write(`{"version":${STATE_VERSION},"savedAt":${savedAt},"engine":`);
        for (const chunk of taker.chunks()) await handle.write(chunk);
        await handle.write('}');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      this.#deps.logger.error({ err: error, file }, 'events: cannot write the window state');
    }
  }

  /** The log store's observer: one live record. */
  readonly observe = (log: string, record: Readonly<Record<string, unknown>>): void => {
    if (log === TRIGGER_LOG) return;
    if (this.#deps.events.generation !== this.#generation) this.#configure();
    const firings = this.engine.observe(log, record, this.#deps.clock.now());
    if (firings.length > 0) this.#act(log, record, firings);
  };

  #configure(): void {
    this.#generation = this.#deps.events.generation;
    const events = this.#deps.events;
    this.engine.configure(events.definitions(), (id) => events.source(id));
    const byEvent = new Map<string, RuleRecord[]>();
    for (const rule of this.#deps.rules.list()) {
      for (const eventId of rule.events) {
        const list = byEvent.get(eventId);
        if (list === undefined) byEvent.set(eventId, [rule]);
        else if (!list.includes(rule)) list.push(rule);
      }
    }
    this.#rulesByEvent = byEvent;
    const keyFields = new Map<string, Partial<Record<KeyTarget, string>>>();
    for (const event of events.list()) {
      for (const configId of event.sources) {
        const source = events.source(configId);
        if (source !== undefined) keyFields.set(source.log, source.keyFields);
      }
    }
    this.#keyFieldsByLog = keyFields;
  }

  /**
   * The rules fired by a record's firings; per site the block rule with the lowest priority value
   * (1 is the highest execution priority) acts, the others are recorded only (spec 2.5).
   */
  #act(log: string, record: Readonly<Record<string, unknown>>, firings: readonly Firing[]): void {
    const now = this.#deps.clock.now();
    const fired = new Map<string, RuleRecord>();
    const rulesOf = (f: Firing): readonly RuleRecord[] => this.#rulesByEvent.get(f.eventId) ?? NO_RULES;
    for (const firing of firings) for (const rule of rulesOf(firing)) fired.set(rule.id, rule);
    const acting = new Map<string, RuleRecord>();
    for (const rule of fired.values()) {
      if (rule.action !== 'block') continue;
      const best = acting.get(rule.siteId);
      if (best === undefined || rule.priority < best.priority) acting.set(rule.siteId, rule);
    }
    const outcomes = new Map<string, RuleOutcome>();
    for (const rule of fired.values()) {
      if (rule.action !== 'block') outcomes.set(rule.id, { rule, ban: 'no_action' });
      else if (acting.get(rule.siteId) !== rule) outcomes.set(rule.id, { rule, ban: 'outranked' });
    }
    for (const rule of acting.values()) {
      const firing = firings.find((f) => rulesOf(f).includes(rule))!;
      const value = this.#targetValue(log, record, rule.target);
      if (value === '') {
        outcomes.set(rule.id, { rule, ban: 'no_target' });
        continue;
      }
      const ban = this.#deps.bans.ban({
        siteId: rule.siteId,
        object: rule.target,
        value,
        durationSeconds: rule.durationSeconds,
        threatStore: true,
        origin: {
          kind: 'rule',
          ruleId: rule.id,
          ruleName: rule.name,
          eventId: firing.eventId,
          eventName: firing.eventName,
          log,
          logId: typeof record.log_id === 'string' ? record.log_id : '',
        },
      });
      this.counts.bans += 1;
      outcomes.set(rule.id, { rule, ban: { id: ban.id, object: rule.target, value } });
    }
    this.counts.firings += firings.length;
    this.counts.ruleFirings += fired.size;
    const notifier = this.#deps.notifier;
    if (notifier !== undefined) {
      for (const rule of fired.values()) {
        const firing = firings.find((f) => rulesOf(f).includes(rule))!;
        const outcome = outcomes.get(rule.id)?.ban;
        const banned =
          outcome !== undefined && typeof outcome === 'object' ? `${outcome.object}:${outcome.value}` : null;
        notifier.notify(rule, {
          at: now,
          ruleId: rule.id,
          ruleName: rule.name,
          siteId: rule.siteId,
          eventId: firing.eventId,
          eventName: firing.eventName,
          object: firing.object,
          key: firing.key,
          action: banned === null ? 'none' : 'block',
          banned,
          meta: firing.meta,
        });
      }
    }
    for (const firing of firings) {
      const rules = rulesOf(firing);
      const bans = rules.flatMap((r) => {
        const o = outcomes.get(r.id)?.ban;
        return o !== undefined && typeof o === 'object' ? [`${o.object}:${o.value}`] : [];
      });
      this.#deps.store.append(TRIGGER_LOG, {
        _timestamp: now,
        log_id: `trg-${now.toString(36)}-${(this.#seq++).toString(36)}`,
        triggered_events: firing.eventId,
        triggered_rules: rules.map((r) => r.id).join(','),
        triggered_rule_names: rules.map((r) => r.name).join(','),
        event_name: firing.eventName,
        event_configure_id: firing.eventId,
        event_kind: firing.kind,
        event_meta: JSON.stringify({ ...firing.meta, object: firing.object, key: firing.key }),
        trigger_object: firing.object ?? '',
        trigger_value: firing.key ?? '',
        action: bans.length > 0 ? 'block' : 'none',
        banned: bans.join(','),
        site_id: rules.length > 0 ? [...new Set(rules.map((r) => r.siteId))].join(',') : siteOf(log, record),
        src_ip: typeof record.src_ip === 'string' ? record.src_ip : '',
        fingerprint: typeof record.fingerprint === 'string' ? record.fingerprint : '',
        source_log: log,
        source_log_id: typeof record.log_id === 'string' ? record.log_id : '',
      });
    }
  }

  /** The value of a rule's target object on the record, through its log's key-field mapping. */
  #targetValue(log: string, record: Readonly<Record<string, unknown>>, target: KeyTarget): string {
    const keyFields = this.#keyFieldsByLog.get(log) ?? (log.startsWith('access:') ? ACCESS_KEYS : undefined);
    const field = keyFields?.[target];
    if (field === undefined) return '';
    const value = record[field];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  }
}

const ACCESS_KEYS: Partial<Record<KeyTarget, string>> = { ip: 'src_ip', device: 'fingerprint' };

function siteOf(log: string, record: Readonly<Record<string, unknown>>): string {
  if (typeof record.site_id === 'string') return record.site_id;
  return log.startsWith('access:') ? log.slice('access:'.length) : '';
}
