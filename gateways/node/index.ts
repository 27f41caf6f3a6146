/**
 * @rampart/gateway-node: Rampart's verdicts for Node gateways (node:http, Express, Fastify), with no
 * dependency beyond Node. `createGateway({ engine, siteId, accessKey })` asks Rampart's gateway API
 * about every request exactly as the nginx bundle's auth_request does (same headers, kept-alive
 * connections, nginx's timeouts), answers reloads and blocks with Rampart's pages, passes the probe's
 * routes (/_rampart/) to Rampart, fails closed (503) or open by setting, and sends the heartbeat
 * until `close()`. It talks to the engine over HTTP only and imports nothing of it.
 */
export {
  createGateway,
  DEFAULT_INTERVAL_SECONDS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  PROBE_PAGE_TAG,
} from './gateway.ts';
export type {
  GatewayOptions,
  GatewayProblem,
  Exchange,
  Next,
  RampartGateway,
  FastifyHook,
  FastifyPlugin,
  FastifyRequestLike,
  FastifyReplyLike,
} from './gateway.ts';
