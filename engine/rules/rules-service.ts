import {
  copyName,
  MIN_RULE_PRIORITY,
  RampartError,
  newId,
  validationFailed,
  type Clock,
  type Edition,
  type FieldProblem,
  type Random,
  type RuleInput,
} from '#engine/shared';
import type { ConfigSlice, RuleRecord } from '#engine/config-store';

export interface RulesServiceDeps {
  store: ConfigSlice<'rules' | 'events' | 'sites'>;
  clock: Clock;
  random: Random;
  edition: Edition;
}

const problem = (
  field: string,
  code: string,
  message: string,
  params: Record<string, string | number> = {},
): FieldProblem => ({
  field,
  message,
  params: { code, ...params },
});

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The API never answers a webhook's secret, so the console sends an empty one when the operator left
 * it alone: on update, an empty secret for a rule that has one keeps it (switching the webhook off
 * and on again clears it).
 */
function keepWebhookSecret(next: RuleInput['notify'], stored: RuleRecord['notify']): RuleInput['notify'] {
  const kept = stored?.webhook?.secret ?? '';
  if (next.webhook === null || next.webhook.secret !== '' || kept === '') return next;
  return { ...next, webhook: { ...next.webhook, secret: kept } };
}

/**
 * Places `priority` among a site's rules (spec 2.5): values of 1 and more are unique, and a value
 * already taken pushes it and every greater one up by one (A=1, B=2, C=3 plus D=2 gives A=1, D=2,
 * B=3, C=4). Rules with no action keep the minimum and are never shifted. Mutates `rules`.
 */
export function placePriority(rules: RuleRecord[], siteId: string, priority: number, exceptId: string | null): void {
  if (priority < 1) return;
  const taken = rules.some((r) => r.siteId === siteId && r.id !== exceptId && r.priority === priority);
  if (!taken) return;
  for (const rule of rules) {
    if (rule.siteId === siteId && rule.id !== exceptId && rule.priority >= priority) rule.priority += 1;
  }
}

/**
 * Event-based rules (spec 2.5, risk-control / advanced rules): unique names, enabled events only,
 * the priority shifting rule and each edition's minimum. Which rule acts when several fire is the
 * runtime's (`actingRule`).
 */
export class RulesService {
  readonly #deps: RulesServiceDeps;

  constructor(deps: RulesServiceDeps) {
    this.#deps = deps;
  }

  get minimumPriority(): number {
    return MIN_RULE_PRIORITY[this.#deps.edition];
  }

  list(siteId?: string): RuleRecord[] {
    return this.#deps.store.data.rules
      .filter((r) => siteId === undefined || r.siteId === siteId)
      .toSorted((a, b) => a.priority - b.priority || a.createdAt - b.createdAt);
  }

  get(id: string): RuleRecord {
    const rule = this.#deps.store.data.rules.find((r) => r.id === id);
    if (rule === undefined) throw new RampartError('NOT_FOUND', 'rule not found');
    return rule;
  }

  async create(input: RuleInput): Promise<RuleRecord> {
    const now = this.#deps.clock.now();
    const priority = this.#priorityOf(input);
    const record: RuleRecord = {
      ...input,
      priority,
      id: newId('rule', this.#deps.random),
      createdAt: now,
      updatedAt: now,
    };
    return this.#deps.store.update((doc) => {
      this.#check(doc, record);
      placePriority(doc.rules, record.siteId, record.priority, record.id);
      doc.rules.push(record);
      return record;
    });
  }

  async update(id: string, input: RuleInput): Promise<RuleRecord> {
    const existing = this.get(id);
    const priority = this.#priorityOf(input);
    return this.#deps.store.update((doc) => {
      const index = doc.rules.findIndex((r) => r.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'rule not found');
      const record: RuleRecord = {
        ...input,
        notify: keepWebhookSecret(input.notify, existing.notify),
        priority,
        id,
        createdAt: existing.createdAt,
        updatedAt: this.#deps.clock.now(),
      };
      this.#check(doc, record);
      const current = doc.rules[index]!;
      // Keeping its own priority (on the same site) moves nobody.
      if (current.priority !== priority || current.siteId !== record.siteId)
        placePriority(doc.rules, record.siteId, priority, id);
      doc.rules[index] = record;
      return record;
    });
  }

  async copy(id: string): Promise<RuleRecord> {
    const source = this.get(id);
    const name = copyName(
      source.name,
      this.#deps.store.data.rules.map((r) => r.name),
      64,
    );
    const { id: _id, createdAt: _c, updatedAt: _u, ...input } = source;
    return this.create({ ...input, name });
  }

  async remove(id: string): Promise<void> {
    await this.#deps.store.update((doc) => {
      const index = doc.rules.findIndex((r) => r.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'rule not found');
      doc.rules.splice(index, 1);
    });
  }

  /** The rules that name an event (for "in use" checks and the runtime). */
  usingEvent(eventId: string): RuleRecord[] {
    return this.#deps.store.data.rules.filter((r) => r.events.includes(eventId));
  }

  #priorityOf(input: RuleInput): number {
    if (input.action === 'none') return this.minimumPriority;
    const priority = input.priority ?? 1;
    if (priority < 1)
      throw validationFailed([
        problem('priority', 'priority_block_minimum', 'must be at least 1 for a rule that blocks', { minimum: 1 }),
      ]);
    return priority;
  }

  #check(
    doc: { rules: RuleRecord[]; events: { id: string; enabled: boolean }[]; sites: { id: string }[] },
    rule: RuleRecord,
  ): void {
    const problems: FieldProblem[] = [];
    if (!doc.sites.some((s) => s.id === rule.siteId))
      problems.push(problem('siteId', 'site_unknown', 'names no protected site'));
    const seen = new Set<string>();
    rule.events.forEach((eventId, i) => {
      const event = doc.events.find((e) => e.id === eventId);
      if (seen.has(eventId)) problems.push(problem(`events[${i}]`, 'event_duplicate', 'is listed twice'));
      else if (event === undefined)
        problems.push(problem(`events[${i}]`, 'event_unknown', 'names no event', { id: eventId }));
      else if (!event.enabled)
        problems.push(
          problem(`events[${i}]`, 'event_disabled', 'is not enabled: only enabled events can be chosen', {
            id: eventId,
          }),
        );
      seen.add(eventId);
    });
    if (problems.length > 0) throw validationFailed(problems);
    if (doc.rules.some((r) => r.id !== rule.id && sameName(r.name, rule.name)))
      throw new RampartError('NAME_TAKEN', 'another rule has this name', {
        field: 'name',
        params: { name: rule.name },
      });
  }
}
