import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { getHealth, getSystemVersion } from '../schemas.ts';

export function systemRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    bindRoute(getHealth, () => ({ status: 'ok' as const, version: deps.version })),
    bindRoute(getSystemVersion, () => ({ version: deps.version, edition: deps.edition, node: process.versions.node })),
  ];
}
