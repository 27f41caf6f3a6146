/**
 * The injection detectors on the WAF hot path: every inspected value (arguments, cookies, some
 * headers) goes through detectSqli and detectXss. Mixes: benign values from the test corpus
 * (typical form and query values, mostly under 100 bytes), then attack payloads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { detectSqli, detectXss } from '#engine/waf/detect';

const DIR = 'tests/fixtures/waf/benign';
const benign = readdirSync(DIR)
  .filter((f) => f.endsWith('.txt'))
  .flatMap((f) => readFileSync(`${DIR}/${f}`).toString('latin1').split('\n'))
  .filter((l) => l.length > 0);

const attacks = [
  '1234 OR 1=1',
  "-1839' or '1'='1",
  "foo') UNION ALL select NULL --",
  "JKGHUKGDI8TDHLFJH72FZLFJSKFH' and sleep(12) --",
  "x' AND 1=0 UNION SELECT username, password FROM users--",
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg/onload=alert(document.domain)>',
  '<a href="javascript:alert(1)">x</a>',
  "' onmouseover='alert(1)",
];

/** Calls per measurement, whatever the mix's size, so small mixes are not measured during JIT warm-up. */
const CALLS = 400_000;
let sink = 0;

function bench(label: string, values: string[], fn: (v: string) => number): void {
  const rounds = Math.max(1, Math.round(CALLS / values.length));
  for (let i = 0; i < rounds / 4; i++) for (const v of values) sink += fn(v); // warm-up
  const start = performance.now();
  for (let r = 0; r < rounds; r++) for (const v of values) sink += fn(v);
  const us = ((performance.now() - start) * 1000) / (rounds * values.length);
  console.log(`${label}: ${us.toFixed(3)} us`);
}

const sqli = (v: string): number => (detectSqli(v).matched ? 1 : 0);
const xss = (v: string): number => (detectXss(v) ? 1 : 0);
const avg = (vs: string[]): string => (vs.reduce((n, v) => n + v.length, 0) / vs.length).toFixed(0);

console.log(
  `# benign values: ${benign.length} (mean ${avg(benign)} bytes); attacks: ${attacks.length} (mean ${avg(attacks)} bytes)`,
);
bench('detect_sqli_us', benign, sqli);
bench('detect_xss_us', benign, xss);
bench('detect_sqli_attack_us', attacks, sqli);
bench('detect_xss_attack_us', attacks, xss);

// The paths that only some values take: a whole statement read by its grammar, and attribute values
// with character references decoded before their scheme is read (issue 18's families).
const statements = [
  'SELECT username, password FROM users WHERE id=1',
  'select count(*) from users',
  'select the best option from the list',
  "INSERT INTO users (name) VALUES ('x')",
];
const encoded = [
  '<a href="javascript&colon;alert(1)">x</a>',
  '<a href="&#x6A;ava&Tab;script&#58alert(1)">x</a>',
  '<a href="https://example.com/?a=1&amp;b=2">x</a>',
  '<p title="Tom &amp; Jerry">x</p>',
];
bench('detect_sqli_statements_us', statements, sqli);
bench('detect_xss_entities_us', encoded, xss);

// A 100-byte typical value, and a long one (4 KiB of prose with quotes) for the linear bound.
const typical = "Hi, it's Jane O'Brien -- is the 27\" monitor still available? I can pick it up on Friday or Sat.";
const long = (typical + ' ').repeat(42);
bench('detect_sqli_100b_us', [typical], sqli);
bench('detect_xss_100b_us', [typical], xss);
bench('detect_sqli_4kib_us', [long], sqli);
bench('detect_xss_4kib_us', [long], xss);

if (sink === -1) console.log('unreachable');
