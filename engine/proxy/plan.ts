import type { SiteCertificateRecord, SiteRecord } from '#engine/config-store';

/** A CNAME site as the proxy routes to it. */
export interface RoutedSite {
  id: string;
  /** Lower-case; `*.example.com` matches one label in front. */
  domain: string;
  /** `http://10.0.0.5:8080`, `https://app.internal:443`. */
  origin: string;
  originVerifyTls: boolean;
  certificate: SiteCertificateRecord | null;
}

/** One listening port and the sites served on it. */
export interface ListenerPlan {
  port: number;
  tls: boolean;
  sites: RoutedSite[];
}

export interface ProxyPlan {
  listeners: Map<number, ListenerPlan>;
  /** Sites that could not be served as set, with the reason (shown with the proxy's status). */
  problems: { siteId: string; message: string }[];
}

/**
 * The listeners the CNAME sites need: a port per protocol and site, several sites on a port told
 * apart by Host (and by SNI on TLS). A port asked for plain HTTP by one site and HTTPS by another
 * is given to the first and reported for the other; so are two sites with the same domain on a port.
 */
export function planListeners(records: readonly SiteRecord[]): ProxyPlan {
  const listeners = new Map<number, ListenerPlan>();
  const problems: ProxyPlan['problems'] = [];
  const ordered = records.toSorted((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  for (const record of ordered) {
    const cname = record.cname;
    // CNAME sites, and plugin sites whose nginx passes every request through Rampart (inline mode).
    const inline = record.accessMethod === 'plugin' && record.pluginMode === 'inline';
    if ((record.accessMethod !== 'cname' && !inline) || cname === undefined || cname.originAddress === '') continue;
    const routed: RoutedSite = {
      id: record.id,
      domain: record.domain.toLowerCase(),
      origin: `${cname.originProtocol}://${cname.originAddress}`,
      originVerifyTls: cname.originVerifyTls,
      certificate: record.certificate ?? null,
    };
    if (!inline && cname.https && routed.certificate === null) {
      problems.push({
        siteId: record.id,
        message: 'HTTPS is on but no certificate is uploaded: handshakes for the site are refused',
      });
    }
    const wanted: [number, boolean][] = [];
    if (cname.http) wanted.push([cname.httpPort, false]);
    // nginx ends TLS in inline mode: Rampart's port for it is plain HTTP.
    if (cname.https && !inline) wanted.push([cname.httpsPort, true]);
    for (const [port, tls] of wanted) {
      const listener = listeners.get(port);
      if (listener === undefined) {
        listeners.set(port, { port, tls, sites: [routed] });
        continue;
      }
      if (listener.tls !== tls) {
        problems.push({
          siteId: record.id,
          message: `port ${port} already serves ${listener.tls ? 'HTTPS' : 'HTTP'} for another site`,
        });
      } else if (listener.sites.some((s) => s.domain === routed.domain)) {
        problems.push({ siteId: record.id, message: `another site serves ${record.domain} on port ${port}` });
      } else listener.sites.push(routed);
    }
  }
  return { listeners, problems };
}

/** The site a host name reaches on a listener: its exact domain, else a `*.` domain one label up. */
export function siteForHost(listener: ListenerPlan, host: string): RoutedSite | undefined {
  let wildcard: RoutedSite | undefined;
  const dot = host.indexOf('.');
  const parent = dot > 0 ? `*.${host.slice(dot + 1)}` : null;
  for (const site of listener.sites) {
    if (site.domain === host) return site;
    if (parent !== null && site.domain === parent) wildcard = site;
  }
  return wildcard;
}
