/**
 * Gateways: the gateway API server (nginx auth_request verdicts, plug-in-less checks, heartbeats,
 * the browser probe's endpoints, reload and block responses) and the nginx plugin bundle, whose
 * user text goes through one escaping function per file format.
 */
export { buildGatewayServer, accessLogName, detectionLogName, GATEWAY_BODY_LIMIT } from './gateway-server.ts';
export type { GatewayDeps, IntelPort, ProbePort, ProbeOutcome, ReportContext } from './gateway-server.ts';
export { probePort, PROBE_SCRIPT_PATH, REPORT_PATH } from './probe-port.ts';
export { pluginBundle, DEFAULT_INTERVAL_SECONDS } from './nginx-bundle.ts';
export type { BundleInput } from './nginx-bundle.ts';
export { tarGz } from './tar.ts';
export { visibleText, lineComment, nginxString, nginxAddress, shellWord, jsonText, markdownText } from './escape.ts';
export type { TarEntry } from './tar.ts';
