import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { overviewDistribution, overviewRanking, overviewSites, overviewSummary, overviewTrend } from '../schemas.ts';

export function overviewRoutes(deps: ApiDeps): AnyRoute[] {
  const { overview } = deps;
  return [
    bindRoute(overviewSummary, async ({ query }) => {
      const span = query.to - query.from;
      const [current, previous] = await Promise.all([
        overview.summary(query),
        overview.summary({ ...query, from: Math.max(0, query.from - span), to: query.from }),
      ]);
      return { current, previous };
    }),
    bindRoute(overviewDistribution, ({ query }) => overview.distribution(query)),
    bindRoute(overviewTrend, ({ query }) => overview.trend(query)),
    bindRoute(overviewRanking, ({ query }) =>
      overview.ranking(
        { from: query.from, to: query.to, ...(query.siteId ? { siteId: query.siteId } : {}) },
        query.field,
        query.limit,
      ),
    ),
    bindRoute(overviewSites, ({ query }) => overview.sitesStatus(query.siteId)),
  ];
}
