/**
 * Log search (issue 13, docs/DESIGN.md 2a): the query box's language, filters compiled to a record
 * predicate with a raw-line pre-check, and the search service over the log store: pages newest first
 * with cursors, histograms (from roll-ups, index entries or a scan), field statistics, a record with
 * its neighbours, a live tail and exports, each within a budget of time and records examined.
 */
export { SearchService, DEFAULT_BUDGET, MAX_PAGE } from './search-service.ts';
export type {
  QueryInput,
  SearchPage,
  Histogram,
  FieldStat,
  FieldStats,
  RecordView,
  SearchBudget,
} from './search-service.ts';
export { parseQuery, QuerySyntaxError } from './query-language.ts';
export { compileFilter, fieldValue, FilterError, scalarText } from './evaluate.ts';
export type { CompiledFilter, Row } from './evaluate.ts';
export { recordId, parseRecordId } from './positions.ts';
export type { LogView } from './sources.ts';
