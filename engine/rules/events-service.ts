import {
  copyName,
  RampartError,
  newId,
  validationFailed,
  type Clock,
  type EventInput,
  type FieldProblem,
  type Random,
} from '#engine/shared';
import type { ConfigSlice, EventRecord, LogConfigRecord } from '#engine/config-store';
import {
  candidateFields,
  checkEvent,
  parseRelation,
  type EventDefinition,
  type RelationNode,
  type SourceInfo,
} from '#engine/events';
import { sourceInfo } from './sources.ts';

export interface EventsServiceDeps {
  store: ConfigSlice<'events' | 'rules' | 'logConfigs'>;
  clock: Clock;
  random: Random;
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The events an event names: its trigger event, CEP steps or combined members. */
export function referencedEvents(event: EventInput): string[] {
  switch (event.kind) {
    case 'count':
    case 'distinct':
    case 'average':
      return event.triggerEvent === null ? [] : [event.triggerEvent];
    case 'cep':
      return event.steps.map((s) => s.event);
    case 'combined':
      return event.members.map((m) => m.event);
    case 'simple':
      return [];
  }
}

/**
 * Events (spec 2.4): created disabled; enabled only with a log source and a definition the event
 * engine compiles against its sources' fields; names unique; an event a rule or another event uses
 * is not deleted. Preset events ship disabled without a source and are edited like any other.
 */
export class EventsService {
  readonly #deps: EventsServiceDeps;
  #sources: { generation: number; byId: Map<string, SourceInfo> } = { generation: -1, byId: new Map() };

  constructor(deps: EventsServiceDeps) {
    this.#deps = deps;
  }

  /** The configuration generation of events, rules and log configurations (the runtime recompiles when it moves). */
  get generation(): number {
    return this.#deps.store.generation;
  }

  list(): readonly EventRecord[] {
    return this.#deps.store.data.events;
  }

  get(id: string): EventRecord {
    const event = this.list().find((e) => e.id === id);
    if (event === undefined) throw new RampartError('NOT_FOUND', 'event not found');
    return event;
  }

  /** A log configuration as an event source (undefined for an unknown id). */
  source(configId: string): SourceInfo | undefined {
    const generation = this.#deps.store.generation;
    if (this.#sources.generation !== generation) {
      const byId = new Map<string, SourceInfo>();
      for (const config of this.#deps.store.data.logConfigs as readonly LogConfigRecord[])
        byId.set(config.id, sourceInfo(config));
      this.#sources = { generation, byId };
    }
    return this.#sources.byId.get(configId);
  }

  /** The fields common to all the chosen sources (spec 2.4's candidate fields). */
  candidateFields(sources: readonly string[]): string[] {
    return candidateFields(sources, (id) => this.source(id));
  }

  async create(input: EventInput): Promise<EventRecord> {
    const now = this.#deps.clock.now();
    const record: EventRecord = {
      ...input,
      id: newId('evt', this.#deps.random),
      preset: false,
      enabled: false,
      createdAt: now,
      updatedAt: now,
    };
    return this.#deps.store.update((doc) => {
      this.#check(doc.events, record);
      doc.events.push(record);
      return record;
    });
  }

  /** Replaces an event's definition; an enabled event stays enabled only if it still compiles. */
  async update(id: string, input: EventInput): Promise<EventRecord> {
    return this.#deps.store.update((doc) => {
      const index = doc.events.findIndex((e) => e.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'event not found');
      const current = doc.events[index]!;
      const record: EventRecord = {
        ...input,
        id,
        preset: current.preset,
        enabled: current.enabled,
        createdAt: current.createdAt,
        updatedAt: this.#deps.clock.now(),
      };
      this.#check(doc.events, record);
      const events = doc.events.with(index, record);
      this.#checkDependents(events, id);
      doc.events[index] = record;
      return record;
    });
  }

  async copy(id: string): Promise<EventRecord> {
    const source = this.get(id);
    const name = copyName(
      source.name,
      this.list().map((e) => e.name),
      64,
    );
    const { id: _id, preset: _p, enabled: _e, createdAt: _c, updatedAt: _u, ...input } = source;
    return this.create({ ...input, name });
  }

  async setEnabled(id: string, enabled: boolean): Promise<EventRecord> {
    return this.#deps.store.update((doc) => {
      const index = doc.events.findIndex((e) => e.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'event not found');
      const current = doc.events[index]!;
      if (current.enabled === enabled) return current;
      const record: EventRecord = { ...current, enabled, updatedAt: this.#deps.clock.now() };
      if (enabled) {
        // Spec 3: a preset (or any event) without a log source cannot be enabled; the console
        // opens the editor so one can be chosen.
        if (record.sources.length === 0)
          throw new RampartError('EVENT_NO_SOURCE', 'choose a log source before enabling the event', {
            field: 'sources',
          });
        this.#check(doc.events, record);
      } else {
        const users = doc.events.filter((e) => e.enabled && e.kind === 'combined' && referencedEvents(e).includes(id));
        if (users.length > 0)
          throw new RampartError('IN_USE', 'an enabled combined event uses this event', {
            params: { events: users.map((e) => e.name).join(', ') },
          });
      }
      doc.events[index] = record;
      return record;
    });
  }

  /** Deletes an event no rule and no other event uses (spec 2.4: cannot be undone). */
  async remove(id: string): Promise<void> {
    await this.#deps.store.update((doc) => {
      const index = doc.events.findIndex((e) => e.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'event not found');
      const rules = doc.rules.filter((r) => r.events.includes(id));
      if (rules.length > 0)
        throw new RampartError('IN_USE', 'rules use this event: remove it from them first', {
          params: { rules: rules.map((r) => r.name).join(', ') },
        });
      const events = doc.events.filter((e) => e.id !== id && referencedEvents(e).includes(id));
      if (events.length > 0)
        throw new RampartError('IN_USE', 'other events use this event: change them first', {
          params: { events: events.map((e) => e.name).join(', ') },
        });
      doc.events.splice(index, 1);
    });
  }

  /**
   * The problems of an event as the form holds it (nothing is saved): the same checks as a save,
   * each with its field path and code, so the console shows them as they are typed.
   */
  check(
    input: EventInput,
    id?: string,
  ): { field: string; code: string; message: string; params?: Record<string, string | number> }[] {
    const existing = id === undefined ? undefined : this.list().find((e) => e.id === id);
    const record: EventRecord = {
      ...input,
      id: existing?.id ?? '(new)',
      preset: existing?.preset ?? false,
      enabled: existing?.enabled ?? false,
      createdAt: 0,
      updatedAt: 0,
    };
    const events =
      existing === undefined ? [...this.list(), record] : this.list().map((e) => (e.id === record.id ? record : e));
    try {
      this.#check(events, record);
      return [];
    } catch (error) {
      if (!(error instanceof RampartError)) throw error;
      const problems =
        error.problems.length > 0
          ? error.problems
          : [{ field: error.field ?? '', message: error.message, params: error.params }];
      return problems.map((p) => {
        const { code, ...params } = (p.params ?? {}) as Record<string, string | number>;
        return {
          field: p.field,
          code: typeof code === 'string' ? code : error.code === 'NAME_TAKEN' ? 'name_taken' : 'invalid',
          message: p.message,
          ...(Object.keys(params).length > 0 ? { params } : {}),
        };
      });
    }
  }

  /**
   * Whether a simple or combined event's relation holds over explained outcomes (by label); for
   * the other kinds, whether every outcome matched.
   */
  relationHolds(event: EventInput, outcomes: readonly { label: string; matched: boolean }[]): boolean {
    if (event.kind !== 'simple' && event.kind !== 'combined') return outcomes.every((o) => o.matched);
    const labels = event.kind === 'simple' ? event.conditions.map((c) => c.label) : event.members.map((m) => m.label);
    const parsed = parseRelation(event.relation, labels);
    if (!parsed.ok) return false;
    const truth = new Map(outcomes.map((o) => [o.label, o.matched]));
    const holds = (node: RelationNode): boolean => {
      switch (node.kind) {
        case 'label':
          return truth.get(node.label) ?? false;
        case 'not':
          return !holds(node.operand);
        case 'and':
          return node.operands.every(holds);
        case 'or':
          return node.operands.some(holds);
      }
    };
    return holds(parsed.value);
  }

  /** The definitions the event engine compiles. */
  definitions(): EventDefinition[] {
    return this.list().map(definitionOf);
  }

  #check(events: readonly EventRecord[], record: EventRecord): void {
    const problems: FieldProblem[] = [];
    if (record.sources.length === 0 && !record.preset)
      problems.push({
        field: 'sources',
        message: 'choose at least one log source',
        params: { code: 'source_required' },
      });
    record.sources.forEach((configId, i) => {
      if (this.source(configId) === undefined)
        problems.push({
          field: `sources[${i}]`,
          message: 'names no log configuration',
          params: { code: 'source_unknown', id: configId },
        });
    });
    if (problems.length === 0 && record.sources.length > 0) {
      const byId = new Map(events.map((e) => [e.id, definitionOf(e)]));
      byId.set(record.id, definitionOf(record));
      for (const p of checkEvent(definitionOf(record), { events: byId, source: (id) => this.source(id) }))
        problems.push({ field: p.path, message: p.message, params: { code: p.code, ...(p.params ?? {}) } });
    }
    if (problems.length > 0) throw validationFailed(problems);
    if (events.some((e) => e.id !== record.id && sameName(e.name, record.name)))
      throw new RampartError('NAME_TAKEN', 'another event has this name', {
        field: 'name',
        params: { name: record.name },
      });
  }

  /** After a change to one event, every enabled event that names it must still compile. */
  #checkDependents(events: readonly EventRecord[], changedId: string): void {
    const byId = new Map(events.map((e) => [e.id, definitionOf(e)]));
    for (const event of events) {
      if (!event.enabled || event.id === changedId || !referencedEvents(event).includes(changedId)) continue;
      const problems = checkEvent(definitionOf(event), { events: byId, source: (id) => this.source(id) });
      if (problems.length > 0)
        throw new RampartError('IN_USE', `the enabled event "${event.name}" uses this event and would no longer work`, {
          params: { events: event.name, reason: problems[0]!.message },
        });
    }
  }
}

function definitionOf(record: EventRecord): EventDefinition {
  const { preset: _p, createdAt: _c, updatedAt: _u, ...definition } = record;
  return definition;
}
