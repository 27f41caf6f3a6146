import type { OperatorDef } from '../types.ts';

/**
 * geoLookup: an explicit no-op that never matches. ModSecurity fills the GEO collection from a
 * GeoIP database here; Rampart's WAF has none wired in (CRS only uses it for the optional
 * country blocking of rule 910100, which stays inert), so GEO stays empty.
 *
 * Arguments: none.
 *
 * Example: `SecRule REMOTE_ADDR "@geoLookup" "id:13,chain"`
 */
export const geoLookup: OperatorDef = {
  name: 'geoLookup',
  compile() {
    return () => false;
  },
};
