/**
 * Event evaluation (engine/events), in process, with the engine's Node flags (bench/run.mjs):
 *
 *   events_records_per_s   2,000,000 generated access records (100,000 client addresses, a few hot;
 *                          mostly browsing, some scanners, credential stuffers and slow pages) replayed
 *                          through one EventEngine holding 50 simple, 10 count / distinct / average
 *                          and 5 CEP events on one access log, with a sweep every 5 s (wall time).
 *                          Records are generated in chunks outside the timed part; only `observe`
 *                          and `sweep` are timed, on one core.
 *   events_peak_rss_mb     the process's peak resident memory during that replay (the engine's key
 *                          state for 100,000 addresses x 15 windowed events, plus one chunk of records)
 *
 *   events_snapshot_whole_ms              that engine's state snapshot (engine/rules writes one every 30 s)
 *                          taken at once, as it was before 2026-12-01: the event loop held throughout
 *   events_snapshot_longest_slice_ms      the longest hold of the event loop while the same snapshot is
 *                          taken in slices of 5 ms (EventEngine.beginSnapshot), as the engine now does
 *
 *   events_verdict_p99_ms_with_100k_bans   a verdict's p99 at a fixed rate (hey, 2,000/s) over HTTP with
 *                          100,000 bans and threat-store entries loaded, next to
 *   events_verdict_p99_ms_no_bans          the same engine with none: two engine processes measured in
 *                          turns, 3 rounds each (BENCH_EVENTS_VERDICT_ROUNDS), the median of each
 *                          state's rounds; the rounds are printed too (bench/events-verdict.ts)
 *
 *   npm run bench:events   (BENCH_EVENTS_RECORDS=... to change the record count; BENCH_EVENTS_VERDICT=0
 *                          to skip the verdict section, e.g. when profiling the replay)
 *
 * Sections run one after the other, at the end of this file, and each prints its own lines; the
 * workload (records, sources, definitions) above them is shared.
 */
import { EventEngine, type EventDefinition, type SourceInfo } from '#engine/events';
import type { EventConditionInput } from '#engine/shared';
import { accessLogConfig } from '#engine/config-store';
import { sourceInfo } from '#engine/rules';
import { line, median } from './support.ts';
import { verdictP99WithBans } from './events-verdict.ts';

const RECORDS = Number(process.env.BENCH_EVENTS_RECORDS ?? 2_000_000);
/** Records are made in chunks small enough to die young (they are made outside the timed part). */
const CHUNK = 10_000;
const ADDRESSES = 100_000;
/** Record time advances 1 ms per 5 records: 5,000 records a second, 400 s for two million. */
const RECORDS_PER_MS = 5;
/** The engine sweeps on a timer: every 5 s of wall time. */
const SWEEP_MS = 5_000;
const START = Date.UTC(2026, 0, 1);

const LOG = 'access:site-bench';
// The access log configuration of the bench site, as the engine makes it for a site.
const ACCESS: SourceInfo = {
  ...sourceInfo(accessLogConfig('access-bench', 'bench access log', 'site-bench', 0)),
  log: LOG,
};
const source = (id: string): SourceInfo | undefined => (id === 'access-bench' ? ACCESS : undefined);

// ---------------------------------------------------------------------------------------------
// The workload: deterministic pseudo-random numbers, so every run sees the same records.
let seed = 7;
const rand = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/#.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:#.0) Gecko/20100101 Firefox/#.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/#.2 Safari/605.1.15',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/#.0.6099.144 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/#.2 Mobile/15E148 Safari/604.1',
];
const TOOLS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'curl/8.4.0',
  'python-requests/2.31.0',
  'Go-http-client/1.1',
  'sqlmap/1.7.2#stable (https://sqlmap.org)',
  'Mozilla/5.00 (Nikto/2.5.0) (Evasions:None) (Test:Port Check)',
  '',
];
const browsers: string[] = [];
for (const b of BROWSERS) for (let v = 100; v < 130; v++) browsers.push(b.replaceAll('#', String(v)));

const SECTIONS = [
  'products',
  'category',
  'blog',
  'static/js',
  'static/css',
  'images',
  'api/v1/items',
  'search',
  'account',
  'cart',
];
const pages: string[] = [];
for (let i = 0; i < 5_000; i++) {
  const section = SECTIONS[i % SECTIONS.length]!;
  pages.push(`/${section}/${(i * 2_654_435_761) % 1_000_003}${section.startsWith('static') ? '.js' : ''}`);
}
const PROBES = [
  '/wp-login.php',
  '/wp-admin/setup-config.php',
  '/.env',
  '/.git/config',
  '/phpmyadmin/index.php',
  '/admin/config.php',
  '/cgi-bin/../../../../etc/passwd',
  "/search?q=1' union select password from users--",
  '/api/v1/items?id=1%20or%201=1',
  '/server-status',
];
const COUNTRIES = ['US', 'US', 'US', 'DE', 'FR', 'GB', 'CN', 'RU', 'BR', 'IN', 'JP', 'NL'];
const DATA_CENTRES = ['Amazon AWS', 'Google Cloud', 'Microsoft Azure', 'DigitalOcean', 'OVH'];

interface Client {
  ip: string;
  fingerprint: string;
  ua: string;
  intel: { intel: Record<string, string | number> };
  /** browser, scanner, stuffer (login attempts) */
  kind: 0 | 1 | 2;
}
const clients: Client[] = [];
for (let i = 0; i < ADDRESSES; i++) {
  const kind = rand() < 0.97 ? 0 : rand() < 0.6 ? 1 : 2;
  const dataCentre = kind !== 0 || rand() < 0.05;
  clients.push({
    ip: `${1 + Math.floor(rand() * 222)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${i % 256}`,
    fingerprint: `fp${Math.floor(rand() * 2 ** 48).toString(16)}`,
    ua: kind === 0 ? pick(browsers) : pick(TOOLS),
    kind,
    intel: {
      intel: {
        ip_country: pick(COUNTRIES),
        ip_asn: 1000 + Math.floor(rand() * 60_000),
        ip_classification: dataCentre ? 'data_center' : 'residential_or_business',
        ip_data_center_name: dataCentre ? pick(DATA_CENTRES) : '',
        ua_family: kind === 0 ? 'Chrome' : 'Other',
      },
    },
  });
}

/** A new flat copy of a string, as a parsed request's values are (pooled strings would flatter lookups). */
const fresh = (text: string): string => Buffer.from(text, 'latin1').toString('latin1');

let logSeq = 0;
function accessRecord(): Record<string, unknown> {
  // A few hot clients: rand()^3 favours the start of the list.
  const client = clients[Math.floor(rand() ** 3 * clients.length)]!;
  const r = rand();
  let method = 'GET';
  let path: string;
  let status = 200;
  let guard = 'PASS';
  if (client.kind === 1) {
    path = r < 0.6 ? pick(PROBES) : pick(pages);
    status = r < 0.5 ? 404 : r < 0.6 ? 403 : 200;
    guard = r < 0.3 ? 'BLOCKED_BY_WAF' : r < 0.5 ? 'BOT' : 'PASS';
  } else if (client.kind === 2) {
    method = 'POST';
    path = '/account/login';
    status = r < 0.9 ? 401 : 302;
    guard = r < 0.2 ? 'TOKEN_MISS' : 'PASS';
  } else {
    path = pick(pages);
    if (r < 0.03) status = 404;
    else if (r < 0.05) status = 304;
    else if (r < 0.052) status = 500;
    else if (r < 0.06) {
      method = 'POST';
      path = r < 0.055 ? '/account/login' : '/cart/checkout';
      status = r < 0.054 ? 401 : 302;
    }
    if (rand() < 0.02) guard = 'TOKEN_MISS';
  }
  const slow = rand();
  return {
    _timestamp: 0,
    log_id: `l${++logSeq}`,
    site_id: 'site-bench',
    hostname: 'shop.example.com',
    scheme: 'https',
    request: `${method} ${path} HTTP/1.1`,
    src_ip: fresh(client.ip),
    x_forwarded_for: '',
    user_agent: fresh(client.ua),
    referrer: rand() < 0.5 ? 'https://shop.example.com/' : '',
    status,
    body_bytes_sent: Math.floor(rand() * 40_000),
    request_time: slow < 0.01 ? 2 + slow * 500 : slow * 0.3,
    guard_status: guard,
    action: guard === 'PASS' ? 'pass' : 'deny',
    list_result: '',
    fingerprint: fresh(client.fingerprint),
    waf_triggered_rules: guard === 'BLOCKED_BY_WAF' ? '942100,942190' : '',
    waf_triggered_categories: guard === 'BLOCKED_BY_WAF' ? 'sqli' : '',
    waf_triggered_score: guard === 'BLOCKED_BY_WAF' ? 10 : 0,
    waf_rule_set: '',
    source_type: 'web',
    _intelligence_result: client.intel,
  };
}

// ---------------------------------------------------------------------------------------------
// The events.
const base = { description: '', sources: ['access-bench'], enabled: true };
let conditionLabel = 0;
const cond = (field: string, mode: EventConditionInput['mode'], value: string | number): EventConditionInput => ({
  label: String.fromCharCode(97 + conditionLabel++),
  field,
  filter: mode === 'regex' || mode === 'exact' ? 'string' : 'number',
  mode,
  value: String(value),
});
function simple(
  id: string,
  relation: string,
  ...conditions: ((() => EventConditionInput) | EventConditionInput)[]
): EventDefinition {
  conditionLabel = 0;
  const list = conditions.map((c) => (typeof c === 'function' ? c() : c));
  return { ...base, id, name: id, kind: 'simple', relation, conditions: list };
}
const s = (field: string, mode: EventConditionInput['mode'], value: string | number) => () => cond(field, mode, value);

const simpleEvents: EventDefinition[] = [
  simple('not-found', 'a', s('status', 'exact', 404)),
  simple('forbidden', 'a', s('status', 'exact', 403)),
  simple('server-error', 'a', s('status', '>=', 500)),
  simple('login-failed', 'a & b', s('request', 'regex', '^POST /account/login'), s('status', 'exact', 401)),
  simple('login-ok', 'a & b', s('request', 'regex', '^POST /account/login'), s('status', 'exact', 302)),
  simple('post', 'a', s('request', 'regex', '^POST ')),
  simple('wordpress-probe', 'a', s('request', 'regex', '/wp-(?:admin|login|content)')),
  simple('script-probe', 'a & b', s('request', 'regex', '\\.(?:php|asp|aspx|jsp)(?:\\?| )'), s('status', 'exact', 404)),
  simple('secret-probe', 'a', s('request', 'regex', '/\\.(?:env|git|svn|htpasswd)')),
  simple('sqli-request', 'a', s('request', 'regex', '(?:union.+select|select.+from|\\bor\\b\\s*\\d=\\d|%20or%20)')),
  simple('traversal', 'a', s('request', 'regex', '\\.\\./')),
  simple('scanner-ua', 'a', s('user_agent', 'regex', '(?:sqlmap|[Nn]ikto|nmap|masscan|zgrab)')),
  simple('script-ua', 'a', s('user_agent', 'regex', '^(?:curl|python-requests|Go-http-client|Wget)/')),
  simple('empty-ua', 'a', s('user_agent', 'exact', '')),
  simple(
    'crawler-ua',
    'a & !b',
    s('user_agent', 'regex', '(?:[Bb]ot|[Cc]rawler|[Ss]pider)'),
    s('ip_classification', 'exact', 'residential_or_business'),
  ),
  simple('guard-bot', 'a', s('guard_status', 'exact', 'BOT')),
  simple('guard-token-miss', 'a', s('guard_status', 'exact', 'TOKEN_MISS')),
  simple('guard-waf', 'a', s('guard_status', 'exact', 'BLOCKED_BY_WAF')),
  simple('guard-reputation', 'a', s('guard_status', 'exact', 'REPUTATION')),
  simple('slow', 'a', s('request_time', '>', 2)),
  simple('slow-ok', 'a & b', s('request_time', '>', 5), s('status', 'exact', 200)),
  simple('big-response', 'a', s('body_bytes_sent', '>', 1_000_000)),
  simple('from-cn', 'a', s('ip_country', 'exact', 'CN')),
  simple('ru-not-found', 'a & b', s('ip_country', 'exact', 'RU'), s('status', 'exact', 404)),
  simple('data-centre', 'a', s('ip_classification', 'exact', 'data_center')),
  simple(
    'cloud-scanner',
    'a & (b | c)',
    s('ip_data_center_name', 'regex', '(?:Amazon|Google|Azure)'),
    s('status', 'exact', 404),
    s('status', 'exact', 403),
  ),
  simple('waf-score', 'a', s('waf_triggered_score', '>=', 5)),
  simple('waf-sqli-xss', 'a', s('waf_triggered_categories', 'regex', '(?:sqli|xss)')),
  simple('api-error', 'a & b', s('request', 'regex', '^\\w+ /api/'), s('status', '>=', 400)),
  simple('admin-not-ok', 'a & !b', s('request', 'regex', '^GET /admin'), s('status', 'exact', 200)),
  simple('admin-host', 'a', s('hostname', 'exact', 'admin.example.com')),
  simple('post-no-referrer', 'a & b', s('request', 'regex', '^POST '), s('referrer', 'exact', '')),
  simple('listed', 'a', s('list_result', 'exact', 'block')),
  simple('denied', 'a', s('action', 'exact', 'deny')),
  simple('bad-request', 'a | b | c', s('status', 'exact', 400), s('status', 'exact', 405), s('status', 'exact', 414)),
  simple('rate-limited', 'a', s('status', 'exact', 429)),
  simple('gateway-error', 'a | b', s('status', 'exact', 502), s('status', 'exact', 503)),
  simple('checkout', 'a', s('request', 'regex', '^POST /cart/checkout')),
  simple('search', 'a', s('request', 'regex', '^GET /search')),
  simple('static', 'a', s('request', 'regex', '^GET /static/')),
  simple('not-modified', 'a', s('status', 'exact', 304)),
  simple('server-status', 'a', s('request', 'regex', '/server-(?:status|info)')),
  simple('phpmyadmin', 'a', s('request', 'regex', '/(?:phpmyadmin|pma|myadmin)/')),
  simple('passwd', 'a', s('request', 'regex', '/etc/(?:passwd|shadow)')),
  simple('old-http', 'a', s('request', 'regex', 'HTTP/1\\.0$')),
  simple(
    'from-de-fr',
    '(a | b) & c',
    s('ip_country', 'exact', 'DE'),
    s('ip_country', 'exact', 'FR'),
    s('status', 'exact', 403),
  ),
  simple('chrome-old', 'a', s('user_agent', 'regex', 'Chrome/(?:[1-9]\\d)\\.')),
  simple('mobile-post', 'a & b', s('user_agent', 'regex', 'Mobile'), s('request', 'regex', '^POST ')),
  simple('asn-range', 'a & b', s('ip_asn', '>=', 60_000), s('status', 'exact', 404)),
  simple('http-scheme', 'a', s('scheme', 'exact', 'http')),
];

const win = (value: number, unit: 'second' | 'minute' | 'hour') => ({ value, unit });
const windowedEvents: EventDefinition[] = [
  {
    ...base,
    id: 'many-404',
    name: 'many 404',
    kind: 'count',
    triggerEvent: 'not-found',
    object: 'ip',
    window: win(1, 'minute'),
    comparator: '>=',
    threshold: 20,
  },
  {
    ...base,
    id: 'flood',
    name: 'flood',
    kind: 'count',
    triggerEvent: null,
    object: 'ip',
    window: win(1, 'minute'),
    comparator: '>=',
    threshold: 300,
  },
  {
    ...base,
    id: 'stuffing',
    name: 'stuffing',
    kind: 'count',
    triggerEvent: 'login-failed',
    object: 'ip',
    window: win(5, 'minute'),
    comparator: '>=',
    threshold: 5,
  },
  {
    ...base,
    id: 'device-flood',
    name: 'device flood',
    kind: 'count',
    triggerEvent: null,
    object: 'device',
    window: win(10, 'minute'),
    comparator: '>',
    threshold: 500,
  },
  {
    ...base,
    id: 'waf-repeat',
    name: 'waf repeat',
    kind: 'count',
    triggerEvent: 'guard-waf',
    object: 'ip',
    window: win(1, 'hour'),
    comparator: '>=',
    threshold: 10,
  },
  {
    ...base,
    id: 'wide-crawl',
    name: 'wide crawl',
    kind: 'distinct',
    triggerEvent: null,
    field: 'request',
    object: 'ip',
    window: win(5, 'minute'),
    comparator: '>=',
    threshold: 100,
  },
  {
    ...base,
    id: 'ua-rotation',
    name: 'ua rotation',
    kind: 'distinct',
    triggerEvent: null,
    field: 'user_agent',
    object: 'ip',
    window: win(1, 'hour'),
    comparator: '>=',
    threshold: 5,
  },
  {
    ...base,
    id: 'device-hopping',
    name: 'device hopping',
    kind: 'distinct',
    triggerEvent: null,
    field: 'src_ip',
    object: 'device',
    window: win(10, 'minute'),
    comparator: '>=',
    threshold: 20,
  },
  {
    ...base,
    id: 'slow-client',
    name: 'slow client',
    kind: 'average',
    triggerEvent: null,
    field: 'request_time',
    object: 'ip',
    window: win(1, 'minute'),
    comparator: '>',
    threshold: 3,
  },
  {
    ...base,
    id: 'big-pulls',
    name: 'big pulls',
    kind: 'average',
    triggerEvent: 'static',
    field: 'body_bytes_sent',
    object: 'ip',
    window: win(10, 'minute'),
    comparator: '>',
    threshold: 35_000,
  },
];

const cepEvents: EventDefinition[] = [
  {
    ...base,
    id: 'probe-then-login',
    name: 'probe then login',
    kind: 'cep',
    object: 'ip',
    window: win(5, 'minute'),
    continuity: 'loose',
    steps: [
      { event: 'not-found', min: 3, max: 10 },
      { event: 'post', min: 1, max: 1 },
    ],
  },
  {
    ...base,
    id: 'brute-force-success',
    name: 'brute force success',
    kind: 'cep',
    object: 'ip',
    window: win(10, 'minute'),
    continuity: 'strict',
    steps: [
      { event: 'login-failed', min: 5, max: 50 },
      { event: 'login-ok', min: 1, max: 1 },
    ],
  },
  {
    ...base,
    id: 'token-then-bot',
    name: 'token then bot',
    kind: 'cep',
    object: 'ip',
    window: win(1, 'minute'),
    continuity: 'loose',
    steps: [
      { event: 'guard-token-miss', min: 1, max: 1 },
      { event: 'guard-bot', min: 1, max: 3 },
    ],
  },
  {
    ...base,
    id: 'recon-chain',
    name: 'recon chain',
    kind: 'cep',
    object: 'ip',
    window: win(10, 'minute'),
    continuity: 'loose',
    steps: [
      { event: 'wordpress-probe', min: 1, max: 1 },
      { event: 'secret-probe', min: 1, max: 1 },
      { event: 'sqli-request', min: 1, max: 1 },
    ],
  },
  {
    ...base,
    id: 'static-then-404',
    name: 'static then 404',
    kind: 'cep',
    object: 'device',
    window: win(1, 'minute'),
    continuity: 'strict',
    steps: [
      { event: 'static', min: 3, max: 20 },
      { event: 'not-found', min: 1, max: 1 },
    ],
  },
];

/** Every event of the benchmark; later sections may add theirs before configuring an engine. */
const definitions: EventDefinition[] = [...simpleEvents, ...windowedEvents, ...cepEvents];

// ---------------------------------------------------------------------------------------------
// Section: replay.
function replay(): EventEngine {
  const engine = new EventEngine();
  const report = engine.configure(definitions, source);
  if (report.skipped.length > 0) throw new Error(`events not compiled: ${JSON.stringify(report.skipped)}`);

  let peakRss = process.memoryUsage.rss();
  let timedMs = 0;
  let firings = 0;
  let done = 0;
  let nextSweep = performance.now() + SWEEP_MS;
  const chunk: Record<string, unknown>[] = [];
  while (done < RECORDS) {
    chunk.length = 0;
    const size = Math.min(CHUNK, RECORDS - done);
    for (let i = 0; i < size; i++) chunk.push(accessRecord());
    const first = done;
    const started = performance.now();
    for (let i = 0; i < size; i++) {
      const now = START + Math.floor((first + i) / RECORDS_PER_MS);
      firings += engine.observe(LOG, chunk[i]!, now).length;
      if ((i & 1023) === 0 && performance.now() >= nextSweep) {
        engine.sweep(now);
        nextSweep += SWEEP_MS;
      }
    }
    timedMs += performance.now() - started;
    done += size;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  const stats = Object.values(engine.stats());
  console.log(
    `# ${done} records, ${firings} firings, ${stats.reduce((n, s) => n + s.keys, 0)} keys held, ${stats.reduce((n, s) => n + s.evictions, 0)} evicted`,
  );
  line('events_records_per_s', done / (timedMs / 1000), '/s');
  line('events_peak_rss_mb', peakRss / 1024 / 1024, 'MB');
  return engine;
}

// ---------------------------------------------------------------------------------------------
// Section: the state snapshot of that engine (engine/rules writes one every 30 s): taken at once,
// and in slices of 5 ms as the engine takes it, with the longest hold of the event loop.
function snapshotSection(engine: EventEngine): void {
  const started = performance.now();
  const text = engine.snapshot();
  const wholeMs = performance.now() - started;
  const begun = performance.now();
  const taker = engine.beginSnapshot();
  const beginMs = performance.now() - begun;
  let longest = beginMs;
  const times: number[] = [];
  let slices = 0;
  let slicedMs = 0;
  for (let done = false; !done; slices++) {
    const slice = performance.now();
    done = taker.step(5);
    const ms = performance.now() - slice;
    slicedMs += ms;
    times.push(ms);
    longest = Math.max(longest, ms);
  }
  // Each piece is made when asked for: the time of each `next()` is a hold of the event loop too.
  let bytes = 0;
  const chunks = taker.chunks();
  for (;;) {
    const piece = performance.now();
    const next = chunks.next();
    longest = Math.max(longest, performance.now() - piece);
    if (next.done === true) break;
    bytes += next.value.length;
  }
  if (bytes !== text.length)
    throw new Error(`the sliced snapshot has ${bytes} characters, the whole one ${text.length}`);
  times.sort((a, b) => a - b);
  console.log(
    `# snapshot: ${(bytes / 1e6).toFixed(1)} MB, ${slices} slices taking ${slicedMs.toFixed(0)} ms in all; its start ${beginMs.toFixed(1)} ms; slices p50 ${times[times.length >> 1]!.toFixed(1)} p99 ${times[Math.floor(times.length * 0.99)]!.toFixed(1)} max ${times.at(-1)!.toFixed(1)} ms`,
  );
  line('events_snapshot_whole_ms', wholeMs, 'ms');
  line('events_snapshot_longest_slice_ms', longest, 'ms', 1);
}

// ---------------------------------------------------------------------------------------------
// The sections, in order.
snapshotSection(replay());

// The verdict with the threat store full: p99 at a fixed rate with 100,000 bans loaded (and their
// threat-store entries), next to the same engine with none, measured in turns; the median of each
// state's rounds (bench/events-verdict.ts).
if (process.env.BENCH_EVENTS_VERDICT !== '0') await verdictSection();

async function verdictSection(): Promise<void> {
  const verdict = await verdictP99WithBans(100_000);
  const rounds = (values: number[]): string => values.map((v) => v.toFixed(2)).join(', ');
  console.log(`# verdict p99 per round (ms): no bans ${rounds(verdict.none)}; 100k bans ${rounds(verdict.withBans)}`);
  line('events_verdict_p99_ms_no_bans', median(verdict.none), 'ms', 2);
  line('events_verdict_p99_ms_with_100k_bans', median(verdict.withBans), 'ms', 2);
}
