/**
 * What the WAF benchmarks (waf.bench.ts, proxy.bench.ts) send and measure against: one request mix,
 * and nginx + ModSecurity v3's configuration for the same Core Rule Set.
 */
import { join } from 'node:path';

export interface MixEntry {
  attack: boolean;
  method: 'GET' | 'POST';
  path: string;
  contentType?: string;
  body?: string;
}

/** Six everyday requests and four attacks (SQL injection, XSS, path traversal, command injection). */
export const MIX: readonly MixEntry[] = [
  { attack: false, method: 'GET', path: '/products/42?ref=home&q=blue+shoes&page=2' },
  { attack: false, method: 'GET', path: '/' },
  { attack: false, method: 'GET', path: '/static/app.js?v=1234' },
  {
    attack: false,
    method: 'POST',
    path: '/login',
    contentType: 'application/x-www-form-urlencoded',
    body: 'user=alice&password=S3cret%21&remember=on',
  },
  {
    attack: false,
    method: 'POST',
    path: '/api/cart',
    contentType: 'application/json',
    body: '{"item":42,"qty":2,"note":"gift wrap please"}',
  },
  { attack: false, method: 'GET', path: '/search?q=o%27reilly+books&sort=price' },
  { attack: true, method: 'GET', path: '/item?id=1%27%20OR%20%271%27=%271' },
  { attack: true, method: 'GET', path: '/search?q=%3Cscript%3Ealert(1)%3C/script%3E' },
  { attack: true, method: 'GET', path: '/download?file=../../../../etc/passwd' },
  { attack: true, method: 'GET', path: '/ping?host=127.0.0.1;cat%20/etc/passwd' },
];

/**
 * modsecurity.conf for nginx + ModSecurity v3 over a CRS folder: request bodies up to 128 KB
 * (Reject above), the recommended body-processor and body-error rules, and response bodies off or
 * inspected up to 64 KB of the text types Rampart's proxy reads.
 */
export function modsecurityConf(ruleSet: { dir: string; setupFile?: string | null }, responseBodies: boolean): string {
  return [
    'SecRuleEngine On',
    'SecRequestBodyAccess On',
    ...(responseBodies
      ? [
          'SecResponseBodyAccess On',
          'SecResponseBodyMimeType text/plain text/html text/xml application/json application/javascript',
          'SecResponseBodyLimit 65536',
          'SecResponseBodyLimitAction ProcessPartial',
        ]
      : ['SecResponseBodyAccess Off']),
    'SecRequestBodyLimit 131072',
    'SecRequestBodyNoFilesLimit 131072',
    'SecRequestBodyLimitAction Reject',
    'SecAuditEngine Off',
    'SecRule REQUEST_HEADERS:Content-Type "^(?:application(?:/soap\\+|/)|text/)xml" "id:200000,phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=XML"',
    'SecRule REQUEST_HEADERS:Content-Type "^application/json" "id:200001,phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=JSON"',
    'SecRule REQBODY_ERROR "!@eq 0" "id:200002,phase:2,t:none,log,deny,status:400,msg:\'Failed to parse request body.\'"',
    'SecRule MULTIPART_STRICT_ERROR "!@eq 0" "id:200003,phase:2,t:none,log,deny,status:400,msg:\'Multipart strict error\'"',
    `Include ${ruleSet.setupFile ?? '/etc/modsecurity/crs/crs-setup.conf'}`,
    `Include ${join(ruleSet.dir, 'rules', '*.conf')}`,
    '',
  ].join('\n');
}
