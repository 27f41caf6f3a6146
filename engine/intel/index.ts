/**
 * Intelligence: what a request's client address and user agent say about it, for the verdict
 * pipeline (anti-bot rules) and the access log (spec 2.3: ip_city, ip_classification,
 * ip_data_center_name, ua_classification, ua_family, ua_os, ua_version_major, _intelligence_result).
 *
 * `createIntel(options)` loads the offline databases once (bundled ASN and country data; city data
 * only from a configured path) and rejects with a SETTINGS_INVALID RampartError naming the setting
 * when a file cannot be read. `intel.lookup(ip, userAgent)` is synchronous, never throws and runs in
 * bounded time for any input (user agents are cut to 512 characters, addresses over 64 characters
 * are invalid); results are cached in bounded LRUs. Unknown text values are '', an unknown ASN is 0;
 * classifications are closed sets (IP_CLASSIFICATIONS, UA_CLASSIFICATIONS). Bot precedence:
 * scanner > script tool > search engine > other crawler. `accessLogFields(result)` gives the flat
 * log fields. See README.md for data sources, licences and trade-offs.
 */
export { createIntel, accessLogFields, IP_CLASSIFICATIONS } from './intel.ts';
export type { Intel, IntelOptions, IntelResult, IntelFields, IntelAccessLogFields, IpClassification } from './intel.ts';
export { UA_CLASSIFICATIONS } from './ua-analyser.ts';
export type { UaClassification } from './ua-analyser.ts';
export { INTEL_FIELD_NAMES } from './intel.ts';
