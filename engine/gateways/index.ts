/**
 * Gateways: the gateway API server (nginx auth_request verdicts, plug-in-less checks, heartbeats,
 * the browser probe's endpoints, reload and block responses), the gateway log port (nginx's
 * access-log lines merged into the verdicts' access records) and the nginx plugin bundle, whose
 * user text goes through one escaping function per file format.
 */
export {
  buildGatewayServer,
  accessLogName,
  detectionLogName,
  GATEWAY_BODY_LIMIT,
  PAGE_CSP,
  NO_STORE,
} from './gateway-server.ts';
export type { GatewayDeps, IntelPort, ProbePort, ProbeOutcome, ReportContext } from './gateway-server.ts';
export { probePort, PROBE_SCRIPT_PATH, REPORT_PATH } from './probe-port.ts';
export { pluginBundle, DEFAULT_INTERVAL_SECONDS } from './nginx-bundle.ts';
export { caddyBundle } from './caddy-bundle.ts';
export { haproxyBundle } from './haproxy-bundle.ts';
export { traefikBundle, traefikMiddlewareName } from './traefik-bundle.ts';
export { envoyBundle } from './envoy-bundle.ts';
export type { BundleInput } from './nginx-bundle.ts';
export { nodeGatewayBundle, nodeGatewayCode } from './node-gateway-bundle.ts';
export { miniProgramSdkBundle, miniProgramSdkCode } from './mini-program-bundle.ts';
export type { NodeGatewayBundleInput } from './node-gateway-bundle.ts';
export { tarGz } from './tar.ts';
export {
  visibleText,
  lineComment,
  nginxString,
  nginxAddress,
  shellWord,
  jsonText,
  markdownText,
  caddyString,
  quotedPlainWord,
  yamlString,
  envoyHeaderValue,
} from './escape.ts';
export type { TarEntry } from './tar.ts';
export { gatewayTrust, DEFAULT_TRUSTED_GATEWAYS } from './gateway-trust.ts';
export { parseGatewayLogDatagram, nginxLogFormat, LOG_FORMAT_NAME, LOG_TAG } from './gateway-log-line.ts';
export type { GatewayLogLine, LineParse } from './gateway-log-line.ts';
export { AccessMerge, withResponse, DEFAULT_MERGE_WAIT_MS, DEFAULT_MAX_PENDING } from './access-merge.ts';
export type { AccessRecord, HeldRecord, AccessMergeOptions, AccessMergeCounts } from './access-merge.ts';
export { GatewayLogPort, loneAccessRecord, DEFAULT_GATEWAY_LOG_PORT } from './gateway-log-port.ts';
export type { GatewayLogPortOptions, GatewayLogCounts } from './gateway-log-port.ts';
export { verdictConvention, conventionFacts, conventionStatus, ENVOY_PREFIX, VERDICT_PATH } from './forward-auth.ts';
export type { VerdictConvention } from './forward-auth.ts';
