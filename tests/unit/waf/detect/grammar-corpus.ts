/**
 * A labelled test set for the injection detectors, generated from small SQL and HTML grammars
 * written for this project (not taken from any project's test files): each attack is a context the
 * value lands in, crossed with what an attacker has to add there; each benign value is ordinary
 * text, markup or data built from templates. Deterministic: the same lists every run.
 */

export interface Sample {
  family: string;
  value: string;
}

function cross<A, B>(as: readonly A[], bs: readonly B[], f: (a: A, b: B) => string): string[] {
  const out: string[] = [];
  for (const a of as) for (const b of bs) out.push(f(a, b));
  return out;
}

/** Random-looking but fixed letter case: `select` -> `SeLeCt` (attackers vary case to dodge rules). */
function mixedCase(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += i % 2 === 0 ? (s[i] ?? '').toUpperCase() : (s[i] ?? '').toLowerCase();
  return out;
}

const upper = (s: string): string => s.toUpperCase();
/** Block comments used as whitespace: `union/**\/select`. */
const commented = (s: string): string => s.replaceAll(' ', '/**/');

// ----- SQL -----

/**
 * How a value leaves its context: [prefix, suffix that re-balances or cuts the rest of the query].
 * Bare (a number), single- and double-quoted strings, and each inside parentheses.
 */
const SQL_CONTEXTS: readonly (readonly [string, string, string])[] = [
  ['bare', '1', ''],
  ['bare', '-1', '-- -'],
  ['numeric-paren', '1)', '-- -'],
  ['numeric-paren', '9))', '#'],
  ['single', "x'", '-- -'],
  ['single', "1'", '#'],
  ['single-rebalanced', "x'", " and 'a'='a"],
  ['single-paren', "x')", '-- -'],
  ['double', 'x"', '-- -'],
  ['double-paren', 'x")', '#'],
];

/** What follows the break-out: logic, a UNION, a stacked statement, a side-effect call. */
const SQL_ADDITIONS = [
  ' or 1=1',
  ' and 1=0',
  " or 'a'='a'",
  ' or true',
  ' || 1=1',
  ' and 2>1',
  ' or x=x',
  ' union select 1,2,3',
  ' union all select null,null',
  ' union select username,password from users',
  '; drop table users',
  '; delete from users where 1=1',
  '; insert into logins values(1,2)',
  "; update users set role='admin'",
  '; exec xp_cmdshell(0)',
  "; waitfor delay '0:0:5'",
  ' and sleep(5)',
  ' or benchmark(1000000,md5(1))',
  ' and (select 1 from dual)',
  ' and extractvalue(1,concat(0x7e,version()))',
  ' order by 5',
];

/** Additions that only follow a string: clauses, a call around a sub-query, a stacked call. */
const QUOTED_ADDITIONS = [
  ' having 1=1',
  ' group by id having 1=1',
  ' or exists(select 1)',
  "; if (1=1) waitfor delay '0:0:5'",
];

/** Operators around a function call inside a quote context: the string is closed, joined, reopened. */
const QUOTE_OPERATORS = ['-', '+', '||', '*', '/', '%', '^', '|', '&', '<<', '>>'];
const FUNCTION_CALLS = ['alert(1)', 'sleep(5)', 'foo(1)', 'version()', 'pg_sleep(3)', 'char(65)', 'x(0)', 'rand()'];

/** Whole statements sent as a value. */
const STATEMENTS = [
  'SELECT a FROM b WHERE c=1',
  'SELECT * FROM users',
  'SELECT username, password FROM accounts',
  'select id,name from members where id=4',
  'select * from users where name like "a%"',
  'SELECT password FROM users LIMIT 1',
  'select 1,2,3 from dual',
  'SELECT @@version',
  'select version()',
  'select load_file(0x2f6574632f706173737764)',
  'SELECT user FROM mysql.user',
  'SELECT table_name FROM information_schema.tables',
  'UNION SELECT 1,2,3',
  'union all select null,null,null',
  'UNION SELECT password FROM users',
  'INSERT INTO users VALUES (1,2)',
  "insert into users (name, role) values ('x', 'admin')",
  'INSERT INTO t SELECT * FROM u',
  "UPDATE users SET role='admin' WHERE id=1",
  'update accounts set balance=0',
  'DELETE FROM users WHERE id=1',
  'delete from sessions;',
  'DROP TABLE users',
  'drop table users;',
  'DROP DATABASE shop',
  'TRUNCATE TABLE logs',
  'CREATE TABLE x (a int)',
  'ALTER TABLE users ADD admin int',
  'EXEC xp_cmdshell "dir"',
  "WAITFOR DELAY '0:0:5'",
  'DECLARE @x varchar(99)',
  'SELECT 1; DROP TABLE users',
  '1; SELECT pg_sleep(5)',
  'select name from users order by 1',
  'select id from accounts order by id desc',
  'select a from b union select c from d',
  'SELECT name FROM users GROUP BY name, role',
];

export function sqlAttacks(): Sample[] {
  const out: Sample[] = [];
  for (const [family, prefix, suffix] of SQL_CONTEXTS) {
    for (const add of SQL_ADDITIONS) {
      out.push({ family: `sql-${family}`, value: prefix + add + suffix });
      out.push({ family: `sql-${family}-upper`, value: prefix + upper(add) + suffix });
      out.push({ family: `sql-${family}-comments`, value: prefix + commented(add) + suffix });
    }
    if (!prefix.includes("'") && !prefix.includes('"')) continue;
    for (const add of QUOTED_ADDITIONS) {
      out.push({ family: `sql-${family}-clause`, value: prefix + add + suffix });
      out.push({ family: `sql-${family}-clause-upper`, value: prefix + upper(add) + suffix });
    }
  }
  for (const quote of ["'", '"']) {
    for (const value of cross(QUOTE_OPERATORS, FUNCTION_CALLS, (op, call) => `${quote}${op}${call}${op}${quote}`))
      out.push({ family: 'sql-quoted-operator-call', value });
    for (const value of cross(QUOTE_OPERATORS, FUNCTION_CALLS, (op, call) => `x${quote}${op}${call}${op}${quote}y`))
      out.push({ family: 'sql-quoted-operator-call', value });
  }
  for (const st of STATEMENTS) {
    out.push({ family: 'sql-statement', value: st });
    out.push({ family: 'sql-statement-mixed-case', value: mixedCase(st) });
    out.push({ family: 'sql-statement-comments', value: commented(st) });
  }
  return out;
}

// ----- HTML -----

const HANDLERS = [
  'onerror',
  'onload',
  'onclick',
  'onmouseover',
  'onfocus',
  'ontoggle',
  'onanimationstart',
  'onpointerenter',
  'onbegin',
  'onauxclick',
  'onwheel',
  'onfoobar',
];
const HANDLER_TAGS = [
  'img src="x"',
  'svg',
  'body',
  'input autofocus',
  'details open',
  'video',
  'a',
  'div',
  'xss',
  'marquee',
];
const CODE = ['alert(1)', 'alert`1`', 'prompt(document.domain)', "top['al'+'ert'](1)", 'eval(atob(name))'];

/** Ways of writing `javascript:` that a browser still reads as that scheme in a URL attribute. */
const SCHEMES = [
  'javascript:',
  'JaVaScRiPt:',
  'javascript&colon;',
  'javascript&COLON;',
  'javascript&#58;',
  'javascript&#58',
  'javascript&#x3a;',
  'javascript&#X3A;',
  'javascript&#0000058;',
  '&#106;avascript:',
  '&#x6A;avascript&#x3A;',
  '&#0106&#0097&#0118&#0097&#0115&#0099&#0114&#0105&#0112&#0116&#0058',
  'java\tscript:',
  'java\nscript:',
  'java&#9;script:',
  'java&Tab;script:',
  'java&NewLine;script&colon;',
  'jav&#x09;ascript:',
  ' \x01javascript:',
  'vbscript:',
  'VBScript&colon;',
];
const URL_VECTORS = [
  (u: string): string => `<a href="${u}alert(1)">x</a>`,
  (u: string): string => `<a href=${u}alert(1)>x</a>`,
  (u: string): string => `<iframe src="${u}alert(1)">`,
  (u: string): string => `<form action="${u}alert(1)"><input type=submit>`,
  (u: string): string => `<button formaction='${u}alert(1)'>x</button>`,
  (u: string): string => `<object data="${u}alert(1)">`,
  (u: string): string => `<embed src="${u}alert(1)">`,
  (u: string): string => `<svg><a xlink:href="${u}alert(1)"><text x=20 y=20>x</text></a></svg>`,
  (u: string): string => `<math><maction actiontype="statusline" xlink:href="${u}alert(1)">x</maction></math>`,
  (u: string): string => `<svg><animate attributeName=href values="${u}alert(1)" /></svg>`,
  (u: string): string => `<svg><set attributeName="href" to="${u}alert(1)"/></svg>`,
  (u: string): string => `<base href="${u}alert(1)//">`,
  (u: string): string => `<meta http-equiv="refresh" content="0;url=${u}alert(1)">`,
  (u: string): string => `<div style="background:url(${u}alert(1))">`,
  (u: string): string => `<area href="${u}alert(1)">`,
];
/** Values that break out of an attribute the application wrote, then add markup or a handler. */
const BREAKOUTS = ['">', "'>", '>', '"/>', '</title>', '</textarea>', '--!>'];

const OTHER_HTML = [
  '<svg><script>alert(1)</script></svg>',
  '<svg onload=alert(1)>',
  '<svg/onload=alert(1)>',
  '<math><mtext><script>alert(1)</script></mtext></math>',
  '<iframe srcdoc="<script>alert(1)</script>">',
  '<iframe srcdoc="&lt;img src=x onerror=alert(1)&gt;">',
  '<object data="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">',
  '<embed src="https://evil.example/x.swf">',
  '<base href="https://evil.example/">',
  '<a href="data:text/html,<script>alert(1)</script>">x</a>',
  '<iframe src="data:text/html;charset=utf-8,<script>alert(1)</script>">',
  '<div style="width:expression(alert(1))">',
  '<div style="x:ex/**/pression(alert(1))">',
  '<p style="background-image:url(\'javascript:alert(1)\')">',
  '<style>@import "https://evil.example/x.css";</style>',
  '<link rel=stylesheet href=//evil.example/x.css>',
  '<meta http-equiv="refresh" content="0;url=https://evil.example">',
  '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>',
  '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % ext SYSTEM "http://evil.example/x.dtd"> %ext;]>',
  '<!DOCTYPE foo SYSTEM "http://evil.example/x.dtd">',
  '<!ENTITY xxe SYSTEM "file:///etc/hostname">',
];

export function xssAttacks(): Sample[] {
  const out: Sample[] = [];
  for (const tag of HANDLER_TAGS) {
    for (const h of HANDLERS) {
      for (const [i, code] of CODE.entries()) {
        const sep = [' ', '/', '\t', '\n', ' '][i] ?? ' ';
        const quote = ['"', "'", '', '"', ''][i] ?? '';
        out.push({ family: 'xss-handler', value: `<${tag}${sep}${h}=${quote}${code}${quote}>` });
      }
    }
  }
  for (const b of BREAKOUTS) {
    for (const h of HANDLERS.slice(0, 6)) out.push({ family: 'xss-breakout', value: `${b}<img src=x ${h}=alert(1)>` });
    out.push({ family: 'xss-breakout', value: `${b}<script>alert(1)</script>` });
    out.push({ family: 'xss-breakout', value: `${b}<svg onload=alert(1)>` });
  }
  for (const h of HANDLERS.slice(0, 8)) {
    out.push({ family: 'xss-attribute', value: `" ${h}="alert(1)` });
    out.push({ family: 'xss-attribute', value: `' ${h}='alert(1)` });
    out.push({ family: 'xss-attribute', value: `x ${h}=alert(1)` });
  }
  for (const [i, v] of URL_VECTORS.entries()) {
    for (const s of SCHEMES) {
      // Whitespace ends an unquoted value (`<a href=java\tscript:>` is not a script URL), so the
      // unquoted vector takes only the encodings without raw whitespace inside.
      if (i === 1 && /[^ ]\s/.test(s)) continue;
      out.push({ family: 'xss-scheme', value: v(s) });
    }
  }
  for (const s of SCHEMES) out.push({ family: 'xss-scheme-whole-value', value: `${s}alert(1)` });
  for (const value of OTHER_HTML) out.push({ family: 'xss-vector', value });
  return out;
}

// ----- benign -----

const WORDS = ['select', 'union', 'drop', 'table', 'order', 'insert', 'delete', 'update', 'from', 'where', 'and', 'or'];
const SENTENCES = [
  'select the best option from the list',
  'Select the best option from the list below.',
  "don't drop the table cloth",
  "O'Reilly",
  "Rock 'n' roll",
  "it's 5 o'clock",
  "I'd like 2 - 3 items, if that's ok",
  '1-2 (approx)',
  '10-20 (approx.)',
  '(approx) 1-2 days',
  'between 3 and 5 (inclusive)',
  'drop me a line',
  'drop-down menu',
  'update your profile',
  'delete my account',
  'insert coin to continue',
  'union station parking',
  'order by phone or online',
  'select all that apply',
  'Please select a size and a colour.',
  'We can deliver from 9am to 5pm, where possible.',
  'Tom & Jerry',
  'R&D budget 2024',
  'AT&T or Verizon?',
  'C++ (programming language)',
  'f(x) = x^2 + 1',
  '2*(3+4) = 14',
  'x - y = 3',
  'The "best" option - or not?',
  'He said "hello" and left.',
  "She's the one who said 'no'.",
  "L'Oréal Paris",
  "McDonald's",
  "Ms. O'Neil-Smith",
  "rock 'n' roll (1950s)",
  "it's a 'must-have' - really",
  'table for 2 at 8pm',
  'select committee report',
  'insert into cart',
  'create table of contents',
  'drop table saw price',
  'JavaScript: the good parts',
  'javascript tutorial for beginners',
  'learn javascript: variables, loops and functions',
  'vbscript vs powershell',
  'data: 42',
  'onion rings',
  'one=two',
  'online=true',
  'a < b and c > d',
  'I <3 you',
  '<3 <3 <3',
  'x => x * 2',
  'if (a < b) { c = d; }',
  '&copy; 2024 Example Inc.',
  'Fish &amp; Chips',
  'min(3, 4) - max(1, 2)',
  '$19.99 - $29.99',
  '€12,50 (incl. VAT)',
  '-5% off',
  '+1 (555) 123-4567',
  '2024-05-01T10:00:00Z',
  "he's -sure- of it",
  "He said 'when 5 > 3' twice",
  "the 'group by name' option",
  "Rule: 'where 1=1' is a tautology",
  'Select 1, 2 or 3 options',
  'Select 2',
  'Select "Yes" to continue',
  'select one from each row',
  'delete from cart',
  'drop table cloth',
  'Update: new version available',
  'Exec summary template',
  'select count(*) from users',
  'union select committee',
  'Insert into the slot, then turn',
  'update the table set up',
  'Create table (simple)',
];
const EMAILS = [
  'jane.doe@example.com',
  "o'brien@example.ie",
  'a+tag@sub.example.org',
  '"John Smith" <john@example.com>',
];
const URLS = [
  'https://example.com/search?q=select+the+best&page=2',
  'https://example.com/a/b?x=1&y=2#top',
  'http://localhost:8080/api/v1/users/42',
  '/static/app.js?v=1234',
  'https://cdn.example.net/img/logo.png',
  'https://example.com/?redirect=%2Fhome',
  'mailto:jane@example.com',
  'tel:+15551234567',
  'https://www.google.com/url?sa=t&url=https://example.com/',
];
const JSON_VALUES = [
  '{"select":true,"drop":false}',
  '{"name":"O\'Reilly","tags":["a","b"]}',
  '{"q":"union station","order":"asc","limit":10}',
  '[1,2,3]',
  '{"html":"<p>Hello</p>"}',
  '{"onload":"lazy","src":"/img.png"}',
];
const BASE64 = [
  'SGVsbG8gd29ybGQ=',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl',
  'PHA+SGVsbG88L3A+',
  'dGFibGUgZHJvcA==',
];
const PRICES = ['$5', '5.00', '1,299.00', '£7.50 - £9.00', '19.99 USD', '100%', '50% - 70%'];
const MARKUP = [
  '<p>Hello <b>world</b></p>',
  '<a href="https://example.com/?a=1&b=2" target="_blank">x</a>',
  '<a href="/docs/javascript-guide">JavaScript guide</a>',
  '<img src="/logo.png" alt="Logo">',
  '<img src="data:image/png;base64,AAAA" alt="">',
  '<span style="color: red">x</span>',
  '<p style="font-family: \'Open Sans\'">text</p>',
  '<ul><li>one</li><li>two</li></ul>',
  '<blockquote cite="https://example.com">quote</blockquote>',
  '<table><tr><td>1</td></tr></table>',
  '<!-- comment -->',
  '<!DOCTYPE html>',
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
  '<a href="#section-2" title="Section &amp; more">more</a>',
  '<a href="mailto:x@example.com">mail</a>',
  '<input type="text" name="q" value="select">',
  '<div class="online" data-one="1">x</div>',
  '<a href="https://example.com/?a=1&amp;b=2&amp;lang=javascript">x</a>',
  '<a href="/wiki/JavaScript:_The_Good_Parts">book</a>',
  '<p title="ratio 1&colon;2">x</p>',
  '<a title="JavaScript: The Good Parts" href="/books/1">book</a>',
  '<img alt="vbscript: a guide" src="/cover.png">',
  '<img src="/img/a.png" alt="Tom &amp; Jerry">',
  '<span style="font-family: Arial; /* brand */ color: #333">x</span>',
  '<?xml version="1.0" encoding="UTF-8"?><note><to>Tove</to></note>',
  'AT&amp;T',
  'Q&amp;A: javascript closures',
  '&lt;b&gt;bold&lt;/b&gt;',
];

/** Sentences that use SQL's words as English: templates x fillers. */
const TEMPLATES = [
  (a: string, b: string): string => `Please select ${a} from ${b}.`,
  (a: string, b: string): string => `Select ${a} from ${b}`,
  (a: string, b: string): string => `We will update ${a} by ${b}, where possible.`,
  (a: string, b: string): string => `Drop ${a} at the ${b} desk; order by noon`,
  (a: string, b: string): string => `Insert ${a} into ${b} and wait`,
  (a: string, b: string): string => `Delete ${a} from ${b}? (yes/no)`,
  (a: string, b: string): string => `${a} and/or ${b}`,
  (a: string, b: string): string => `${a} - ${b} (approx)`,
  (a: string, b: string): string => `"${a}" or "${b}"`,
  (a: string, b: string): string => `'${a}' vs '${b}'`,
  (a: string, b: string): string => `${a}'s ${b}`,
  (a: string, b: string): string => `Union of ${a} and ${b}`,
  (a: string, b: string): string => `Create ${a} (with ${b})`,
  (a: string, b: string): string => `select ${a} from ${b} order by phone`,
  (a: string, b: string): string => `PLEASE SELECT ${a} FROM ${b}`.toUpperCase(),
];
const FILLERS_A = ['the best option', 'one', 'your size', 'all items', 'a colour', 'the table', "O'Brien", 'users'];
const FILLERS_B = [
  'the list',
  'each row',
  'the menu',
  'Friday',
  'the cart',
  'the union office',
  'the drop-down',
  '5pm',
];

/** Ordinary markup a rich-text editor sends: tags x harmless attributes. */
const RICH_TAGS = ['p', 'span', 'div', 'a', 'img', 'li', 'td', 'blockquote', 'h2', 'em'];
const RICH_ATTRIBUTES = [
  'class="note"',
  'title="Tom &amp; Jerry"',
  'href="https://example.com/a?b=1&amp;c=2"',
  'src="/images/photo.jpg"',
  'alt="A photo of the online store"',
  'style="color: #333; font-weight: bold"',
  'data-one="1"',
  'id="section-2"',
  'lang="en"',
  'href="#top"',
];

export function benignSamples(): Sample[] {
  const out: Sample[] = [];
  const add = (family: string, values: readonly string[]): void => {
    for (const value of values) out.push({ family, value });
  };
  add('sentence', SENTENCES);
  add(
    'sentence-title-case',
    SENTENCES.map((s) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase())),
  );
  add('email', EMAILS);
  add('url', URLS);
  add('json', JSON_VALUES);
  add('base64', BASE64);
  add('price', PRICES);
  add('markup', MARKUP);
  // SQL words used as words in short queries: `order table`, `drop union`...
  add(
    'word-pairs',
    cross(WORDS, WORDS, (a, b) => `${a} ${b}`),
  );
  add(
    'word-phrases',
    cross(WORDS, ['the list', 'my order', 'a table', 'station', 'down menu'], (a, b) => `${a} ${b}`),
  );
  for (const t of TEMPLATES) add('sentence-template', cross(FILLERS_A, FILLERS_B, t));
  add(
    'rich-text',
    cross(RICH_TAGS, RICH_ATTRIBUTES, (tag, attr) => `<${tag} ${attr}>text</${tag}>`),
  );
  return out;
}
