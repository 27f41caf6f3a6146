import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps, ConsoleTlsPort } from '../deps.ts';
import {
  downloadConsoleCa,
  getConsoleCertificate,
  resetConsoleCertificate,
  setConsoleCertificate,
} from '../schemas.ts';

/** The console's own HTTPS certificate (engine/console-tls). */
export function consoleTlsRoutes(deps: ApiDeps): AnyRoute[] {
  const port = (): ConsoleTlsPort => {
    if (!deps.consoleTls) {
      throw new RampartError('NOT_FOUND', 'The console speaks plain HTTP only (RAMPART_CONSOLE_TLS=off)');
    }
    return deps.consoleTls;
  };
  return [
    bindRoute(getConsoleCertificate, () => port().status()),
    bindRoute(setConsoleCertificate, ({ body }) => port().upload(body)),
    bindRoute(resetConsoleCertificate, () => port().useGenerated()),
    bindRoute(downloadConsoleCa, () => ({
      fileName: 'rampart-console-ca.pem',
      contentType: 'application/x-pem-file',
      content: Buffer.from(port().caPem(), 'utf8'),
    })),
  ];
}
