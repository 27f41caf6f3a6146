/**
 * Event-based rules (spec 2.5), the events' definitions as stored (spec 2.4), bans and the threat
 * store (spec 3, 8), and the runtime that joins them on the live stream: the log store's observer
 * feeds the event engine (engine/events); fired events are written to the trigger log, the rules
 * they fire act (per site, the block rule with the lowest priority value), and bans are checked by
 * the verdict in O(1) through `BanStore.isBanned`.
 */
export { EventsService, referencedEvents } from './events-service.ts';
export type { EventsServiceDeps } from './events-service.ts';
export { RulesService, placePriority } from './rules-service.ts';
export type { RulesServiceDeps } from './rules-service.ts';
export { BanStore, THREAT_STORE_SECONDS } from './bans.ts';
export type { Ban, BanOrigin, BanQuery, ThreatEntry, BansSnapshot } from './bans.ts';
export { EventRuntime, TRIGGER_LOG } from './runtime.ts';
export type { EventRuntimeDeps, RuleOutcome, TriggerLogStore } from './runtime.ts';
export { sourceInfo, logOfConfig } from './sources.ts';
export { dryRun } from './dry-run.ts';
export type { DryRunResult, DryRunStore, DryRunOptions } from './dry-run.ts';
export { Notifier, webhookSignature, syslogLine } from './notifier.ts';
export type { Alert, NotifierDeps, NotifierCounts } from './notifier.ts';
