/**
 * Events (spec 2.4, 6; docs/DESIGN.md 2c): the condition-relation parser, the checks of an event
 * definition against the others and its log sources, and the streaming evaluator. `EventEngine` is
 * pure and synchronous: given live records (log, record, time) it returns the events that fired on
 * each, keeping bounded per-key state (sliding windows, distinct counts, averages, CEP runs,
 * combined-event latches) that it can snapshot and restore as versioned JSON. It does no I/O, keeps
 * no timer and reads no clock: time is what the caller passes, made monotonic inside. Definitions
 * are trusted to have passed `eventInputSchema` and `checkEvent`; an event that still cannot be
 * compiled is skipped and reported by `configure`, and `observe` never throws on any record.
 */
export { EventEngine } from './engine.ts';
export type { EventEngineOptions } from './engine.ts';
export type { SnapshotTaker } from './snapshot.ts';
export { parseRelation, parseRelationSyntax } from './relation.ts';
export type { RelationNode, RelationResult } from './relation.ts';
export { checkEvent, candidateFields } from './check.ts';
export type { CheckContext } from './check.ts';
export { MAX_RUNS } from './cep.ts';
export { MAX_BUCKETS, bucketMsOf } from './window.ts';
export { HLL_PRECISION } from './sliding-hll.ts';
export type {
  KeyTarget,
  EventDefinition,
  SourceInfo,
  SourceLookup,
  EventProblem,
  Firing,
  ExplainRow,
  EventStats,
  ConfigureReport,
  RestoreReport,
} from './types.ts';
