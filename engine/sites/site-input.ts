// The site shape is defined once, in engine/shared (the API contracts and this module both read it;
// neither may import the other).
export { siteInputSchema, siteGlobalInputSchema, SITE_LIMITS, plainText } from '#engine/shared';
export type { SiteInput, SiteSettings, SiteGlobalInput } from '#engine/shared';
