import type { EventRecord, RuleRecord } from '#engine/config-store';
import { dryRun, referencedEvents, type Ban } from '#engine/rules';
import { RampartError, eventInputSchema, type LogKeyTarget } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  checkEvent,
  copyEvent,
  copyRule,
  createBan,
  createEvent,
  createRule,
  deleteEvent,
  deleteRule,
  dryRunEvent,
  eventCandidateFields,
  explainEvent,
  getIpLists,
  setIpLists,
  getEvent,
  getRule,
  liftBan,
  listBans,
  listEvents,
  listRules,
  setEventEnabled,
  updateEvent,
  updateRule,
  type BanView,
  type EventProblemView,
  type EventView,
  type RuleView,
} from '../schemas.ts';

const toRuleView = (r: RuleRecord): RuleView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  siteId: r.siteId,
  events: [...r.events],
  action: r.action,
  target: r.target,
  durationSeconds: r.durationSeconds,
  priority: r.priority,
  notify: r.notify
    ? {
        emails: [...r.notify.emails],
        webhook: r.notify.webhook && { url: r.notify.webhook.url, secretSet: r.notify.webhook.secret !== '' },
        syslog: r.notify.syslog,
        throttleSeconds: r.notify.throttleSeconds,
      }
    : { emails: [], webhook: null, syslog: null, throttleSeconds: 300 },
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const toBanView = (b: Ban, now: number): BanView => ({
  id: b.id,
  siteId: b.siteId,
  object: b.object,
  value: b.value,
  createdAt: b.createdAt,
  until: b.until,
  remainingSeconds: Math.max(0, Math.ceil((b.until - now) / 1000)),
  origin: { ...b.origin },
});

export function eventRoutes(deps: ApiDeps): AnyRoute[] {
  const { events, rules, bans, eventRuntime, clock } = deps;

  const toEventView = (e: EventRecord): EventView => {
    const stats = e.enabled ? (eventRuntime.engine.stats()[e.id] ?? { keys: 0, evictions: 0, firings: 0 }) : null;
    return {
      ...e,
      usedBy: {
        rules: rules.usingEvent(e.id).map((r) => ({ id: r.id, name: r.name })),
        events: events
          .list()
          .filter((other) => other.id !== e.id && referencedEvents(other).includes(e.id))
          .map((other) => ({ id: other.id, name: other.name })),
      },
      stats,
    };
  };
  const siteKnown = (siteId: string): void => {
    if (!deps.sites.list().some((s) => s.id === siteId))
      throw new RampartError('VALIDATION_FAILED', 'names no protected site', { field: 'siteId' });
  };

  return [
    bindRoute(listEvents, () => ({ items: events.list().map(toEventView) })),
    bindRoute(getEvent, ({ params }) => toEventView(events.get(params.id))),
    bindRoute(createEvent, async ({ body }) => toEventView(await events.create(body))),
    bindRoute(updateEvent, async ({ params, body }) => toEventView(await events.update(params.id, body))),
    bindRoute(deleteEvent, async ({ params }) => {
      await events.remove(params.id);
    }),
    bindRoute(copyEvent, async ({ params }) => toEventView(await events.copy(params.id))),
    bindRoute(setEventEnabled, async ({ params, body }) =>
      toEventView(await events.setEnabled(params.id, body.enabled)),
    ),
    bindRoute(checkEvent, ({ body }) => {
      const parsed = eventInputSchema.safeParse(body.event);
      if (!parsed.success) {
        const problems: EventProblemView[] = parsed.error.issues.map((issue) => ({
          field: issue.path
            .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
            .join(''),
          code: 'invalid',
          message: issue.message,
        }));
        return { problems };
      }
      return { problems: events.check(parsed.data, body.id) };
    }),
    bindRoute(eventCandidateFields, ({ body }) => {
      const sources = body.sources.map((id) => events.source(id));
      const keyTargets = (['ip', 'device', 'user', 'custom1', 'custom2'] as const).filter(
        (t: LogKeyTarget) => sources.length > 0 && sources.every((s) => s !== undefined && !!s.keyFields[t]),
      );
      return { fields: events.candidateFields(body.sources), keyTargets };
    }),
    bindRoute(explainEvent, ({ params, body }) => {
      const event = events.get(params.id);
      const outcomes = eventRuntime.engine.explain(event.id, body.record);
      if (outcomes === undefined)
        throw new RampartError(
          'VALIDATION_FAILED',
          'only an enabled event, or a simple event one uses, can be explained',
          {
            field: 'id',
          },
        );
      return {
        // A field the record lacks has no value: null, not a missing member.
        outcomes: outcomes.map((o) => ({ ...o, value: o.value ?? null })),
        matched: events.relationHolds(event, outcomes),
      };
    }),
    bindRoute(dryRunEvent, async ({ params, body }) => {
      const event = events.get(params.id);
      const all = events.definitions();
      return dryRun(
        all.find((d) => d.id === event.id)!,
        all,
        (id) => events.source(id),
        deps.logStore,
        body,
      );
    }),

    bindRoute(listRules, ({ query }) => ({
      items: rules.list(query.siteId).map(toRuleView),
      minimumPriority: rules.minimumPriority,
    })),
    bindRoute(getRule, ({ params }) => toRuleView(rules.get(params.id))),
    bindRoute(createRule, async ({ body }) => toRuleView(await rules.create(body))),
    bindRoute(updateRule, async ({ params, body }) => toRuleView(await rules.update(params.id, body))),
    bindRoute(deleteRule, async ({ params }) => {
      await rules.remove(params.id);
    }),
    bindRoute(copyRule, async ({ params }) => toRuleView(await rules.copy(params.id))),

    bindRoute(listBans, ({ query }) => {
      const now = clock.now();
      const page = bans.list({
        limit: query.limit,
        ...(query.siteId === undefined ? {} : { siteId: query.siteId }),
        ...(query.object === undefined ? {} : { object: query.object }),
        ...(query.value === undefined ? {} : { value: query.value }),
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      });
      return {
        items: page.bans.map((b) => toBanView(b, now)),
        nextCursor: page.nextCursor,
        total: page.total,
        threatStore: bans.activeThreats(),
      };
    }),
    bindRoute(createBan, ({ body, caller }) => {
      siteKnown(body.siteId);
      const ban = bans.ban({
        siteId: body.siteId,
        object: body.object,
        value: body.value,
        durationSeconds: body.durationSeconds,
        threatStore: false,
        origin: {
          kind: 'manual',
          accountId: caller?.account.id ?? null,
          ...(caller ? { accountName: caller.account.email } : {}),
          reason: body.reason,
        },
      });
      return toBanView(ban, clock.now());
    }),
    bindRoute(liftBan, ({ params }) => {
      bans.lift(params.id);
    }),

    bindRoute(getIpLists, () => deps.globalLists.get()),
    bindRoute(setIpLists, ({ body }) => deps.globalLists.set(body)),
  ];
}
