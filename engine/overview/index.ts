/**
 * The Security Overview's data (spec 1.1, docs/DESIGN.md 2d): counters, distributions, trends and
 * rankings of the access, detection and probe logs over a time range and a site, each read from the
 * log store's minute and value roll-ups with the partial minutes at the range's edges read from
 * their records, so every number is one the log search finds for the same range and filter.
 */
export { OverviewService, bucketSize } from './overview-service.ts';
export type { OverviewDeps, OverviewRange, OverviewSite, OverviewStore, Summary } from './overview-service.ts';
