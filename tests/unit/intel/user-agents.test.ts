import { beforeAll, describe, expect, it } from 'vitest';
import { createIntel, type Intel } from '#engine/intel';
import { LOAD_TIMEOUT } from './fixture.ts';

let intel: Intel;
beforeAll(async () => {
  intel = await createIntel();
}, LOAD_TIMEOUT);

const ua = (s: string) => intel.lookup('203.0.113.9', s).intel;

/** [user agent, bot_type, bot_name] */
const BOTS: readonly (readonly [string, string, string])[] = [
  // scanners
  ['sqlmap/1.7.2#stable (https://sqlmap.org)', 'scanner', 'sqlmap'],
  ['Mozilla/5.00 (Nikto/2.1.6) (Evasions:None) (Test:000003)', 'scanner', 'Nikto'],
  ['Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)', 'scanner', 'Nmap'],
  ['masscan/1.3 (https://github.com/robertdavidgraham/masscan)', 'scanner', 'masscan'],
  ['Mozilla/5.0 zgrab/0.x', 'scanner', 'zgrab'],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/91.0.4472.124 Safari/537.36 Nuclei - Open-source project (github.com/projectdiscovery/nuclei)',
    'scanner',
    'Nuclei',
  ],
  [
    'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.21 (KHTML, like Gecko) Chrome/41.0.2228.0 Safari/537.21 acunetix_wvs_security_test',
    'scanner',
    'Acunetix',
  ],
  ['WPScan v3.8.22 (https://wpscan.com/wordpress-security-scanner)', 'scanner', 'WPScan'],
  ['DirBuster-1.0-RC1 (http://www.owasp.org/index.php/Category:OWASP_DirBuster_Project)', 'scanner', 'DirBuster'],
  ['gobuster/3.6', 'scanner', 'Gobuster'],
  ['Fuzz Faster U Fool v2.1.0-dev', 'scanner', 'ffuf'],
  ['Mozilla/5.0 (compatible; Nessus; +http://www.tenable.com)', 'scanner', 'Nessus'],
  ['Mozilla/5.0 [en] (X11, U; OpenVAS-VT 21.4.4)', 'scanner', 'OpenVAS'],
  ['w3af.org', 'scanner', 'w3af'],
  ['Arachni/v1.5.1', 'scanner', 'Arachni'],
  // script tools
  ['curl/8.4.0', 'script_tool', 'curl'],
  ['Wget/1.21.4', 'script_tool', 'Wget'],
  ['python-requests/2.31.0', 'script_tool', 'python-requests'],
  ['Python-urllib/3.11', 'script_tool', 'python-urllib'],
  ['Go-http-client/1.1', 'script_tool', 'Go-http-client'],
  ['Java/1.8.0_381', 'script_tool', 'Java'],
  ['okhttp/4.12.0', 'script_tool', 'okhttp'],
  ['libwww-perl/6.72', 'script_tool', 'libwww-perl'],
  ['axios/1.6.2', 'script_tool', 'axios'],
  ['node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'script_tool', 'node-fetch'],
  ['undici', 'script_tool', 'undici'],
  ['PostmanRuntime/7.36.0', 'script_tool', 'PostmanRuntime'],
  ['HTTPie/3.2.2', 'script_tool', 'HTTPie'],
  ['Apache-HttpClient/4.5.14 (Java/17.0.8)', 'script_tool', 'Apache-HttpClient'],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
    'script_tool',
    'HeadlessChrome',
  ],
  // search engines
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'search_engine', 'Googlebot'],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.216 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'search_engine',
    'Googlebot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    'search_engine',
    'Bingbot',
  ],
  [
    'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    'search_engine',
    'Baiduspider',
  ],
  ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'search_engine', 'YandexBot'],
  ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'search_engine', 'DuckDuckBot'],
  ['Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)', 'search_engine', 'Sogou'],
  [
    'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/50.0.2661.102 Safari/537.36; 360Spider',
    'search_engine',
    '360Spider',
  ],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'search_engine',
    'Bytespider',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'search_engine',
    'Applebot',
  ],
  // other crawlers (from the crawler-user-agents list)
  ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 'other_crawler', 'AhrefsBot'],
  ['Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)', 'other_crawler', 'SemrushBot'],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'other_crawler',
    'GPTBot',
  ],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'other_crawler', 'facebookexternalhit'],
  ['Scrapy/2.11.0 (+https://scrapy.org)', 'other_crawler', 'Scrapy'],
];

/** [user agent, ua_classification, ua_family, ua_os, ua_version_major] */
const BROWSERS: readonly (readonly [string, string, string, string, string])[] = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    'desktop',
    'Chrome',
    'Windows',
    '120',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
    'desktop',
    'Firefox',
    'Windows',
    '121',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
    'desktop',
    'Safari',
    'Mac OS',
    '17',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
    'desktop',
    'Edge',
    'Windows',
    '120',
  ],
  [
    'Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0; SLCC2; .NET CLR 2.0.50727)',
    'desktop',
    'IE',
    'Windows',
    '8',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
    'mobile',
    'Chrome',
    'Android',
    '120',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
    'mobile',
    'Mobile Safari',
    'iOS',
    '17',
  ],
  ['Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0', 'mobile', 'Firefox', 'Android', '121'],
  [
    'Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    'tablet',
    'Mobile Safari',
    'iOS',
    '17',
  ],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 EdgA/120.0.2210.115',
    'mobile',
    'Edge',
    'Android',
    '120',
  ],
];

describe('bot classification', () => {
  it.each(BOTS)('%s is %s (%s)', (agent, type, name) => {
    const r = ua(agent);
    expect(r.bot_type).toBe(type);
    expect(r.bot_name).toBe(name);
    expect(r.ua_classification).toBe(type);
  });

  it('ranks a scanner above the script tool it is built on', () => {
    expect(ua('python-requests/2.31.0 sqlmap/1.7').bot_type).toBe('scanner');
  });

  it('ranks a script tool above a search-engine name it pretends to be', () => {
    expect(ua('curl/8.4.0 (compatible; Googlebot/2.1)').bot_type).toBe('script_tool');
  });

  it("does not call Let's Encrypt's validation server a scanner", () => {
    const r = ua("Mozilla/5.0 (compatible; Let's Encrypt validation server; +https://www.letsencrypt.org)");
    expect(r.bot_type).toBe('other_crawler');
  });

  it('reads the version after the tool name into ua_version_major', () => {
    expect(ua('curl/7.68.0').ua_version_major).toBe('7');
  });
});

describe('browsers', () => {
  it.each(BROWSERS)('%s is a %s %s on %s, version %s', (agent, cls, family, os, major) => {
    const r = ua(agent);
    expect(r.bot_type).toBeNull();
    expect(r.bot_name).toBe('');
    expect(r.ua_classification).toBe(cls);
    expect(r.ua_family).toBe(family);
    expect(r.ua_os).toBe(os);
    expect(r.ua_version_major).toBe(major);
  });
});

describe('unusual user agents', () => {
  it('classifies a missing user agent as empty', () => {
    expect(ua('')).toMatchObject({ ua_classification: 'empty', ua_family: '', bot_type: null });
  });

  it('classifies an unrecognised user agent as unknown with empty fields', () => {
    expect(ua('zz9 plural z alpha')).toMatchObject({
      ua_classification: 'unknown',
      ua_family: '',
      ua_os: '',
      ua_version_major: '',
      bot_type: null,
    });
  });

  it('looks only at the first 512 characters of a 10 KB user agent', () => {
    const padded = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) ${'A'.repeat(10_000)} curl/8.4.0`;
    const started = performance.now();
    const r = ua(padded);
    expect(performance.now() - started).toBeLessThan(200);
    expect(r.bot_type).toBeNull();
  });

  it('gives a defined result for control characters and binary junk', () => {
    for (const junk of ['\u0000\u0001\u0002', '((((((((((', '\\'.repeat(600), '\uD800\uDC00\uFFFF', ' ']) {
      const r = ua(junk);
      expect(typeof r.ua_classification).toBe('string');
    }
  });
});
