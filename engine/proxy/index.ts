/**
 * The reverse proxy of CNAME access (DESIGN.md 3a): listeners per site port (HTTPS by SNI with the
 * sites' uploaded certificates), the verdict pipeline inline with request bodies, the WAF's
 * response phases, keep-alive origin pools, WebSocket pass-through and access records with the
 * response's status, bytes and time.
 */
export {
  ReverseProxy,
  DEFAULT_PROXY_TIMEOUTS,
  DEFAULT_RESPONSE_INSPECT_LIMIT,
  PROXY_HEAD_LIMIT,
} from './reverse-proxy.ts';
export type { ReverseProxyDeps, ProxyTimeouts, ProxyStatus, ListenerStatus } from './reverse-proxy.ts';
export { planListeners, siteForHost } from './plan.ts';
export type { ListenerPlan, ProxyPlan, RoutedSite } from './plan.ts';
export { originRequestHeaders, clientResponseHeaders, hostName } from './headers.ts';
export { ProbeInjector } from './inject.ts';
