import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { getLicence, importLicence, listPurchases, renewPurchase } from '../schemas.ts';

export function licenceRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    bindRoute(getLicence, () => deps.licence.view()),
    bindRoute(importLicence, ({ body }) => deps.licence.import(body.content)),
    bindRoute(listPurchases, () => ({ items: deps.licence.purchases() })),
    bindRoute(renewPurchase, ({ params }) => deps.licence.renew(params.orderNumber)),
  ];
}
