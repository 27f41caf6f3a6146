import { describe, expect, it } from 'vitest';
import { detectSqli, detectXss } from '../../../../engine/waf/detect/index.ts';

const SQLI_ATTACKS = [
  '1 OR 1=1',
  '1) or (1=1',
  "' or ''='",
  "admin'--",
  "admin'#",
  "1' or '1",
  "x' or true and 'a'='a",
  "x'/**/OR/**/TRUE and 'a'='a",
  "x' AND 1=0 UNION SELECT username, password FROM users--",
  '-1 union all select 1,2,3',
  '1; DROP TABLE users',
  "'; exec xp_cmdshell 'dir'--",
  "' and sleep(5)#",
  '1 and benchmark(1000000,md5(1))',
  "' || (select version())",
  "1' order by 3--",
  "x' waitfor delay '0:0:5'--",
  '1 /*!50000union*/ /*!50000select*/ 1',
  "'=0--+",
  '" or ""="',
  '(select(sleep(5)))',
  "'-alert(1)-'",
  "'+alert(1)+'",
  "x'||foo(1)||'",
  'SELECT a FROM b WHERE c=1',
  'union all select null,null',
  "INSERT INTO users (name) VALUES ('x')",
  'DROP TABLE users',
  'drop table users;',
  'SELECT/**/password/**/FROM/**/users',
  '1/**/union/**/all/**/select/**/1,2',
];

const SQLI_BENIGN = [
  "O'Brien",
  "it's 5 or 6 and more",
  "rock 'n' roll or 1 and 2",
  'rock and roll',
  '1 or 2',
  "Use the 'or' operator",
  'select your country',
  'union station parking',
  'order by phone',
  '/post/foo/24 union all select 1,2,3 from aa/bar',
  '<a href="#top">top</a>',
  '{"select":true,"drop":false}',
  'count(*) vs count(1)',
  'select the best option from the list',
  "O'Reilly",
  "don't drop the table cloth",
  'drop table cloth',
  '1-2 (approx)',
  'select count(*) from users',
  "it's -sure- of it",
];

const XSS_ATTACKS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js>',
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(1)>',
  '<body onload="x()">',
  '<iframe src="https://evil.example">',
  '<a href="javascript:alert(1)">x</a>',
  '<a href=" java\tscript:alert(1)">x</a>',
  '<object data="data:text/html,xss">',
  '<div style="width: expression(alert(1))">',
  '"><script>alert(1)</script>',
  '" onfocus="alert(1)" autofocus="',
  "' onmouseover='alert(1)",
  'x onclick=alert(1)',
  'javascript:alert(document.cookie)',
  '<x:script xmlns:x="http://www.w3.org/1999/xhtml">',
  '<!--[if gte IE 4]><script>alert(1)</script><![endif]-->',
  '<iframe srcdoc="&lt;b&gt;">',
  '<a href="javascript&colon;alert(1)">x</a>',
  '<a href="&#x6A;ava&Tab;script&#58alert(1)">x</a>',
  'javascript&colon;alert(1)',
  '<svg><animate attributeName=href values="x;javascript:alert(1)" /></svg>',
  '<div style="x:ex/**/pression(alert(1))">',
  '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
  '<!ENTITY xxe SYSTEM "file:///etc/hostname">',
];

const XSS_BENIGN = [
  '<p>Hello <b>world</b></p>',
  '<a href="https://example.com/?a=1&b=2" target="_blank">x</a>',
  '<img src="/logo.png" alt="Logo">',
  '<img src="data:image/png;base64,AAAA">',
  '<span style="color: red">x</span>',
  'a < b and c > d',
  'I <3 you',
  '"one more time"',
  'javascript: the good parts',
  'x = 1; y = 2',
  '<!-- just a comment -->',
  '<!DOCTYPE html>',
  '<p title="ratio 1&colon;2">x</p>',
  '<a href="https://example.com/?a=1&amp;b=2">x</a>',
];

describe('detectSqli', () => {
  it.each(SQLI_ATTACKS)('flags %s', (input) => {
    expect(detectSqli(input).matched).toBe(true);
  });
  it.each(SQLI_BENIGN)('passes %s', (input) => {
    expect(detectSqli(input)).toEqual({ matched: false, fingerprint: '' });
  });
  it('reports the fingerprint that matched', () => {
    expect(detectSqli('1234 OR 1=1')).toEqual({ matched: true, fingerprint: '1&1=1' });
    expect(detectSqli("-1839' or '1'='1")).toEqual({ matched: true, fingerprint: 's&s=s' });
  });
  it('passes the empty string', () => {
    expect(detectSqli('')).toEqual({ matched: false, fingerprint: '' });
  });
});

describe('detectXss', () => {
  it.each(XSS_ATTACKS)('flags %s', (input) => {
    expect(detectXss(input)).toBe(true);
  });
  it.each(XSS_BENIGN)('passes %s', (input) => {
    expect(detectXss(input)).toBe(false);
  });
});

describe('robustness', () => {
  function randomBytes(seed: number, length: number): string {
    let x = seed;
    let out = '';
    for (let i = 0; i < length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      out += String.fromCharCode((x >>> 16) & 0xff);
    }
    return out;
  }

  it('never throws on arbitrary bytes, including chars above 255', () => {
    for (let seed = 1; seed < 2000; seed++) {
      const input = randomBytes(seed, seed % 300) + (seed % 7 === 0 ? '\u2028\uffff' : '');
      expect(() => detectSqli(input)).not.toThrow();
      expect(() => detectXss(input)).not.toThrow();
    }
  });

  it('reads a 1 MB adversarial value in linear time', () => {
    const unit = "select/**/a,'-f(/*x*/,<a href=&#x6A;ava&Tab;script&colon; on";
    const input = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const start = performance.now();
    detectSqli(input);
    detectXss(input);
    expect(performance.now() - start).toBeLessThan(500);
  });

  it('stays fast on large adversarial inputs (bounded tokens, linear scans)', () => {
    const inputs = [
      "'".repeat(200_000),
      '/*'.repeat(100_000),
      '<a '.repeat(100_000),
      '<!--'.repeat(100_000),
      '" a="'.repeat(50_000),
      '('.repeat(200_000),
      'union '.repeat(50_000),
    ];
    const start = performance.now();
    for (const input of inputs) {
      detectSqli(input);
      detectXss(input);
    }
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
