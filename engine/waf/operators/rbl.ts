import type { OperatorDef } from '../types.ts';

/**
 * rbl: an explicit no-op that never matches. ModSecurity queries a DNS block list here; the WAF
 * does no network I/O while inspecting a request, so CRS rule 910xxx's RBL check stays inert.
 *
 * Arguments: the RBL zone (ignored).
 *
 * Example: `SecRule REMOTE_ADDR "@rbl dnsbl.httpbl.org" "id:14"`
 */
export const rbl: OperatorDef = {
  name: 'rbl',
  compile() {
    return () => false;
  },
};
