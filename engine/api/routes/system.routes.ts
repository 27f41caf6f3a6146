import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { getHealth, getSystemMetrics, getSystemVersion } from '../schemas.ts';

export function systemRoutes(deps: ApiDeps): AnyRoute[] {
  const { system } = deps;
  return [
    // Anonymous callers (load balancers, the desktop shell) learn only that the engine answers.
    bindRoute(getHealth, async ({ caller }) =>
      caller && system
        ? { status: 'ok' as const, version: deps.version, parts: await system.health() }
        : { status: 'ok' as const, version: deps.version },
    ),
    bindRoute(getSystemVersion, () => ({ version: deps.version, edition: deps.edition, node: process.versions.node })),
    bindRoute(getSystemMetrics, () => {
      if (!system) throw new RampartError('NOT_FOUND', 'This engine was started without metrics');
      return system.headline();
    }),
  ];
}
