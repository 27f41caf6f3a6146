/**
 * The console over TLS (issue 19): the appliance's own CA and server certificate made at first
 * start, an uploaded certificate instead, and one port that serves both HTTPS and plain HTTP (a
 * connection's first byte tells them apart; plain HTTP from another host is redirected to HTTPS).
 */
export {
  ConsoleCertificates,
  consoleHostNames,
  CONSOLE_CA_DAYS,
  CONSOLE_CERTIFICATE_DAYS,
  RENEW_BEFORE_DAYS,
} from './console-certificates.ts';
export type { ConsoleTlsStatus, ConsoleTlsSource, ConsoleCertificatesDeps } from './console-certificates.ts';
export { createDualProtocolServer, FIRST_BYTE_TIMEOUT_MS } from './dual-server.ts';
export { plainHttpRedirect, type PlainHttpPolicy } from './redirect.ts';
