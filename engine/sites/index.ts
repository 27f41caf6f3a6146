/**
 * Sites: protected sites (A: site configurations) with run modes, lists, cookies, responses,
 * source-IP retrieval, account extraction and anti-bot switches; B's global configuration with the
 * Access Key and IP lock; plugin heartbeats and connection status; and the compiled form of a site
 * that the verdict pipeline reads on every request.
 */
export { SitesService, HEARTBEAT_WINDOW_MS } from './sites-service.ts';
export type { SitesServiceDeps, SiteStatus, Heartbeat } from './sites-service.ts';
export { compileSite } from './compiled-site.ts';
export type { CompiledSite, CompiledList } from './compiled-site.ts';
export { siteInputSchema, siteGlobalInputSchema, SITE_LIMITS } from './site-input.ts';
export type { SiteInput, SiteSettings, SiteGlobalInput } from './site-input.ts';
export { compileIpList, compilePathList, compilePathRegexList } from './lists.ts';
export { GlobalListsService, GLOBAL_LIST_MAX } from './global-lists.ts';
export type { GlobalListResult } from './global-lists.ts';
export { automaticGatewayAddress, gatewayAddressProblem } from './gateway-address.ts';
export { checkGatewayAddress } from './gateway-check.ts';
export type { GatewayCheck, GatewayCheckProblem } from './gateway-check.ts';
export type { GatewayAddress, GatewayAddressSource, GatewayListener, InterfaceAddresses } from './gateway-address.ts';
export type { IpMatcher, PathMatcher } from './lists.ts';
export {
  checkSiteCertificate,
  describeCertificate,
  coversDomain,
  pemCertificates,
  CERTIFICATE_PEM_MAX,
  CERTIFICATE_WARN_DAYS,
} from './site-certificate.ts';
export type { CertificateInfo } from './site-certificate.ts';
