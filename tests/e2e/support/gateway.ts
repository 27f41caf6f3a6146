import { rawRequest } from '../../support/http.ts';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

export interface GatewayAsk {
  site: string;
  /** The site-global access key. */
  key: string;
  uri: string;
  /** The client's address (X-Rampart-Remote-Addr). */
  ip: string;
  requestId: string;
  /** A probe token for the site and address; none when absent. */
  token?: string;
  /** More headers, or ones that replace the defaults (a Chrome user agent, host shop.example.com). */
  headers?: Record<string, string>;
}

/** One GET through the gateway's verdict endpoint as nginx's auth_request asks: the guard status it answers. */
export async function gatewayGuard(gatewayUrl: string, ask: GatewayAsk): Promise<string> {
  const res = await rawRequest(`${gatewayUrl}/_rampart/verdict`, {
    headers: {
      'x-rampart-site': ask.site,
      'x-rampart-key': ask.key,
      'x-original-uri': ask.uri,
      'x-original-method': 'GET',
      host: 'shop.example.com',
      'x-rampart-remote-addr': ask.ip,
      'x-request-id': ask.requestId,
      'user-agent': CHROME,
      accept: 'text/html',
      ...(ask.token === undefined ? {} : { cookie: `rampart_token=${ask.token}` }),
      ...ask.headers,
    },
  });
  const guard = res.headers['x-rampart-guard'];
  return typeof guard === 'string' ? guard : '';
}
