import { request } from 'node:http';

/**
 * Whether the gateway address that bundles advertise reaches this appliance's gateway API: the engine
 * asks it for the site's probe script, as a gateway's browser traffic would. It proves the address,
 * port and any firewall on this side; whether the gateway's own host can reach it the heartbeat shows.
 */
export type GatewayCheckProblem = 'refused' | 'timeout' | 'unresolved' | 'not_rampart' | 'unreachable';

export interface GatewayCheck {
  reachable: boolean;
  problem: GatewayCheckProblem | null;
  /** The status or system error seen, for the operator. */
  detail: string | null;
  elapsedMs: number;
}

export function checkGatewayAddress(address: string, siteId: string, timeoutMs = 3000): Promise<GatewayCheck> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const done = (check: Omit<GatewayCheck, 'elapsedMs'>): void => {
      if (settled) return;
      settled = true;
      resolve({ ...check, elapsedMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(`http://${address}/_rampart/probe.js`);
    } catch {
      done({ reachable: false, problem: 'unreachable', detail: 'invalid address' });
      return;
    }
    url.searchParams.set('site', siteId);
    const req = request(
      url,
      { method: 'GET', timeout: timeoutMs, headers: { 'x-rampart-site': siteId, connection: 'close' } },
      (res) => {
        res.resume();
        const type = res.headers['content-type'] ?? '';
        if (res.statusCode === 200 && type.startsWith('application/javascript'))
          done({ reachable: true, problem: null, detail: null });
        else done({ reachable: false, problem: 'not_rampart', detail: `HTTP ${res.statusCode ?? 0} ${type}`.trim() });
      },
    );
    req.on('timeout', () => {
      done({ reachable: false, problem: 'timeout', detail: `no answer within ${timeoutMs} ms` });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'ERROR';
      const problem: GatewayCheckProblem =
        code === 'ECONNREFUSED'
          ? 'refused'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? 'unresolved'
            : 'unreachable';
      done({ reachable: false, problem, detail: code });
    });
    req.end();
  });
}
