/**
 * Log configurations (spec 2.2, docs/DESIGN.md 2b): the access ones made with each site and the
 * custom TCP and BROKER ones operators make, each compiled to its parser (engine/parse) on save,
 * TCP ones with their certificate bundle (engine/intake); and the ingestion that turns the lines an
 * intake receives into stored records (the configuration's log, the raw log's failed lines,
 * counters, the last failed records); the raw log read as a view over them (raw-view.ts).
 */
export { LogConfigsService, appliancesZone, customLogName, parseConfigOf, RAW_LOG } from './log-configs-service.ts';
export type { LogConfigsDeps } from './log-configs-service.ts';
export { LogIngest, FAILED_KEPT, addIntelligence, failedRawRecord } from './ingest.ts';
export { rawLogView, RAW_FIELDS } from './raw-view.ts';
export type { IngestStore, IntelLookup, FailedRecord, IngestCounts } from './ingest.ts';
export { Intakes, brokersAllowed } from './intakes.ts';
export type { IntakesDeps, TcpStatus, KafkaStatus } from './intakes.ts';
