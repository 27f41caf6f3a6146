/**
 * Licence: enterprise identity, version type (trial / formal), module states (activated, not
 * purchased, expired) and purchase records. Licence files are signed by the vendor's RSA key and
 * verified with node-forge against the public key in settings. `isActive(module)` is the gate the
 * API asks before serving a licensed feature. `cli.ts` makes vendor keys and signs licence files.
 */
export { LicenceService, TRIAL_DAYS } from './licence-service.ts';
export type { LicenceView, ModuleView, ModuleState, LicenceServiceDeps } from './licence-service.ts';
export {
  signLicence,
  verifyLicence,
  generateVendorKeyPair,
  licencePayloadSchema,
  LICENCE_FORMAT,
  MAX_LICENCE_BYTES,
} from './licence-file.ts';
export type { LicencePayload } from './licence-file.ts';
