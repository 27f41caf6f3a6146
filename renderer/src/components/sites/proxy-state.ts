/**
 * A CNAME site's state in the reverse proxy (GET /proxy/status): whether each of its ports listens,
 * why one could not be opened, and the problems the proxy found with the site's settings. Pure: the
 * components say it with `t`; the engine's English sentences become catalogue details where known.
 */
import type { ProxyStatusView, SiteView } from '$lib/contracts.ts';
import type { Detail } from '$lib/engine-detail.ts';

export interface PortState {
  protocol: 'HTTP' | 'HTTPS';
  port: number;
  /** `opening`: no listener serves the site on this port (yet: the proxy follows changes within a second). */
  state: 'listening' | 'failed' | 'opening';
  /** Why the port could not be opened, as the engine says it. */
  error: string | null;
}

export interface SiteProxyState {
  /** Every port listens and the proxy found nothing wrong. */
  serving: boolean;
  /** Without an origin address the proxy does not serve the site at all. */
  noOrigin: boolean;
  ports: PortState[];
  /** The proxy's problems with this site (a port taken by another protocol, a domain twice), engine's words. */
  problems: string[];
}

/** The state of one CNAME site; null for a site of another access method. */
export function siteProxyState(site: SiteView, status: ProxyStatusView): SiteProxyState | null {
  if (site.accessMethod !== 'cname') return null;
  const noOrigin = site.cname.originAddress === '';
  const wanted: [PortState['protocol'], number][] = [];
  if (site.cname.http) wanted.push(['HTTP', site.cname.httpPort]);
  if (site.cname.https) wanted.push(['HTTPS', site.cname.httpsPort]);
  const problems = status.problems.filter((p) => p.siteId === site.id).map((p) => p.message);
  const ports: PortState[] = noOrigin
    ? []
    : wanted.map(([protocol, port]) => {
        const listener = status.listeners.find((l) => l.port === port && l.siteIds.includes(site.id));
        if (!listener) return { protocol, port, state: 'opening', error: null };
        return {
          protocol,
          port,
          state: listener.listening ? 'listening' : 'failed',
          error: listener.listening ? null : listener.error,
        };
      });
  const serving = !noOrigin && problems.length === 0 && ports.every((p) => p.state === 'listening');
  return { serving, noOrigin, ports, problems };
}

/** The proxy's sentences (engine/proxy: listener errors and plan problems) read for their parameters. */
const SENTENCES: readonly [RegExp, (m: RegExpExecArray) => Detail][] = [
  [/^port (\d+) is in use by another program$/, (m) => ({ key: 'detail.proxy.inUse', params: { port: Number(m[1]) } })],
  [
    /^no permission to listen on port (\d+)\b/,
    (m) => ({ key: 'detail.proxy.permission', params: { port: Number(m[1]) } }),
  ],
  [
    /^port (\d+) already serves (HTTPS?) for another site$/,
    (m) => ({ key: 'detail.proxy.protocol', params: { port: Number(m[1]), protocol: m[2] ?? '' } }),
  ],
  [
    /^another site serves (\S+) on port (\d+)$/,
    (m) => ({ key: 'detail.proxy.domain', params: { domain: m[1] ?? '', port: Number(m[2]) } }),
  ],
];

/** A listener error or site problem of the proxy as a catalogue detail; null: say the engine's words. */
export function proxyErrorDetail(message: string): Detail | null {
  for (const [pattern, make] of SENTENCES) {
    const match = pattern.exec(message);
    if (match) return make(match);
  }
  return null;
}
