import { z } from 'zod';
import { defineContract } from './contract.ts';
import { edition, LIMITS, moduleKey } from './common.schema.ts';

const ADMIN = ['administrator'] as const;

export const licenceView = z.object({
  enterpriseId: z.string(),
  customerName: z.string(),
  versionType: z.enum(['trial', 'formal']),
  edition,
  trialEndsAt: z.number().nullable(),
  importedAt: z.number().nullable(),
  modules: z.array(
    z.object({
      module: moduleKey,
      state: z.enum(['activated', 'not_purchased', 'expired']),
      expiresAt: z.number().nullable(),
    }),
  ),
  vendorKeyConfigured: z.boolean(),
});

export const purchase = z.object({
  orderTime: z.number(),
  orderNumber: z.string(),
  product: z.string(),
  expiresAt: z.number(),
  status: z.string(),
  remark: z.string(),
});

export const getLicence = defineContract({
  method: 'GET',
  path: '/licence',
  operationId: 'getLicence',
  summary: 'Enterprise information, version type and activation contents',
  tag: 'enterprise',
  access: ADMIN,
  response: licenceView,
});

export const importLicence = defineContract({
  method: 'POST',
  path: '/licence',
  operationId: 'importLicence',
  summary: 'Import a vendor-signed licence file',
  tag: 'enterprise',
  access: ADMIN,
  body: z
    .object({
      content: z.string().min(1, 'is required').max(LIMITS.licence, `must be at most ${LIMITS.licence} characters`),
    })
    .strict(),
  response: licenceView,
});

export const listPurchases = defineContract({
  method: 'GET',
  path: '/licence/purchases',
  operationId: 'listPurchases',
  summary: 'Purchase records',
  tag: 'enterprise',
  access: ADMIN,
  response: z.object({ items: z.array(purchase) }),
});

export const renewPurchase = defineContract({
  method: 'POST',
  path: '/licence/purchases/:orderNumber/renew',
  operationId: 'renewPurchase',
  summary: 'Renew an order: answers 409 RENEW_CONTACT_SALES, as channel sales handle renewals',
  tag: 'enterprise',
  access: ADMIN,
  params: z.object({ orderNumber: z.string().min(1).max(64) }).strict(),
  status: 204,
});

export type ModuleKey = z.output<typeof moduleKey>;
export type LicenceView = z.output<typeof licenceView>;
export type ModuleState = LicenceView['modules'][number]['state'];
export type PurchaseRecord = z.output<typeof purchase>;
