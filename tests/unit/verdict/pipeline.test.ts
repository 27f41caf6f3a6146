import { describe, expect, it } from 'vitest';
import { decide, cookieValue } from '#engine/verdict';
import { site, request, ports } from './fixture.ts';

describe('run modes', () => {
  it('pass-through only logs: IGNORE, pass, even without a token', () => {
    expect(decide(site({ runMode: 'pass' }), request({ cookie: '' }), ports())).toMatchObject({
      action: 'pass',
      guardStatus: 'IGNORE',
    });
  });

  it('block mode sends a client without a token to the reload response', () => {
    expect(decide(site(), request({ cookie: '' }), ports())).toMatchObject({
      action: 'reload',
      guardStatus: 'TOKEN_MISS',
      status: 412,
    });
  });

  it('monitor mode never blocks but records what it found', () => {
    const v = decide(site({ runMode: 'monitor' }), request({ cookie: '' }), ports());
    expect(v).toMatchObject({ action: 'pass', guardStatus: 'TOKEN_MISS', status: 200 });
  });

  it('bypass access never blocks', () => {
    expect(decide(site({ accessMethod: 'bypass' }), request({ cookie: 'rampart_token=bot' }), ports())).toMatchObject({
      action: 'pass',
      guardStatus: 'BOT',
    });
  });

  it('uses the configured block and reload statuses', () => {
    const s = site({ blockStatus: 403, reloadStatus: 428 });
    expect(decide(s, request({ cookie: 'rampart_token=bot' }), ports()).status).toBe(403);
    expect(decide(s, request({ cookie: '' }), ports()).status).toBe(428);
  });
});

describe('tokens', () => {
  it('passes a valid token and takes the device from it', () => {
    expect(decide(site(), request(), ports())).toMatchObject({
      action: 'pass',
      guardStatus: 'PASS',
      deviceId: 'dev-1',
    });
  });

  it('tells missing, invalid and expired tokens apart', () => {
    expect(decide(site(), request({ cookie: '' }), ports()).guardStatus).toBe('TOKEN_MISS');
    expect(decide(site(), request({ cookie: 'rampart_token=forged' }), ports()).guardStatus).toBe('TOKEN_INVALID');
    expect(decide(site(), request({ cookie: 'rampart_token=old' }), ports())).toMatchObject({
      guardStatus: 'TOKEN_EXPIRED',
      deviceId: 'dev-3',
    });
  });

  it('blocks the browser verdict BOT carried by the token, unless feature detection is off', () => {
    expect(decide(site(), request({ cookie: 'rampart_token=bot' }), ports())).toMatchObject({
      action: 'block',
      guardStatus: 'BOT',
      status: 400,
    });
    expect(
      decide(site({ browserFeatureDetection: false }), request({ cookie: 'rampart_token=bot' }), ports()).guardStatus,
    ).toBe('PASS');
  });

  it('reads the site cookie names, not the defaults', () => {
    const s = site({ tokenCookieName: 'tk' }, 'A');
    expect(decide(s, request({ cookie: 'rampart_token=good' }), ports()).guardStatus).toBe('TOKEN_MISS');
    expect(decide(s, request({ cookie: 'other=1; tk=good' }), ports()).guardStatus).toBe('PASS');
  });
});

describe('edition A list modes', () => {
  const lists = {
    checkList: { pathEnabled: true, paths: ['/login', '/api/*'], ipEnabled: true, ips: ['198.51.100.0/24'] },
  };

  it('check all requests: the lists do not matter', () => {
    expect(
      decide(site({ ...lists, listMode: 'all' }, 'A'), request({ cookie: '', uri: '/shop' }), ports()).guardStatus,
    ).toBe('TOKEN_MISS');
  });

  it('check only the listed requests: others are ignored', () => {
    const s = site({ ...lists, listMode: 'only_listed' }, 'A');
    expect(decide(s, request({ cookie: '', uri: '/shop' }), ports()).guardStatus).toBe('IGNORE');
    expect(decide(s, request({ cookie: '', uri: '/login?next=/' }), ports()).guardStatus).toBe('TOKEN_MISS');
    expect(decide(s, request({ cookie: '', uri: '/api/orders' }), ports()).guardStatus).toBe('TOKEN_MISS');
    expect(decide(s, request({ cookie: '', uri: '/shop', remoteAddr: '198.51.100.7' }), ports()).guardStatus).toBe(
      'TOKEN_MISS',
    );
  });

  it('pass only the listed requests: they are ignored, others checked', () => {
    const s = site({ ...lists, listMode: 'except_listed' }, 'A');
    expect(decide(s, request({ cookie: '', uri: '/login' }), ports()).guardStatus).toBe('IGNORE');
    expect(decide(s, request({ cookie: '', uri: '/shop' }), ports()).guardStatus).toBe('TOKEN_MISS');
  });

  it('a disabled list takes no part', () => {
    const s = site(
      { checkList: { pathEnabled: false, paths: ['/login'], ipEnabled: false, ips: [] }, listMode: 'only_listed' },
      'A',
    );
    expect(decide(s, request({ cookie: '', uri: '/login' }), ports()).guardStatus).toBe('IGNORE');
  });

  it('"/" means every path and 0.0.0.0/0 every address', () => {
    const s = site(
      { checkList: { pathEnabled: false, paths: [], ipEnabled: true, ips: ['0.0.0.0/0'] }, listMode: 'only_listed' },
      'A',
    );
    expect(decide(s, request({ cookie: '' }), ports()).guardStatus).toBe('TOKEN_MISS');
    const t = site(
      { checkList: { pathEnabled: true, paths: ['/'], ipEnabled: false, ips: [] }, listMode: 'except_listed' },
      'A',
    );
    expect(decide(t, request({ cookie: '', uri: '/anything' }), ports()).guardStatus).toBe('IGNORE');
  });
});

describe('edition B pass and block lists', () => {
  it('a pass-listed path or IP goes through untouched and is logged as pass-listed', () => {
    const s = site({ passList: { pathEnabled: true, paths: ['^/static/'], ipEnabled: true, ips: ['10.0.0.0/8'] } });
    expect(decide(s, request({ cookie: '', uri: '/static/app.js' }), ports())).toMatchObject({
      action: 'pass',
      guardStatus: 'IGNORE',
      listResult: 'pass',
    });
    expect(decide(s, request({ cookie: '', remoteAddr: '10.1.2.3' }), ports()).listResult).toBe('pass');
    expect(decide(s, request({ cookie: '', uri: '/cart' }), ports()).guardStatus).toBe('TOKEN_MISS');
  });

  it('a block-listed path or IP is blocked even with a valid token', () => {
    const s = site({ blockList: { pathEnabled: true, paths: ['^/admin'], ipEnabled: true, ips: ['192.0.2.66'] } });
    expect(decide(s, request({ uri: '/admin/users' }), ports())).toMatchObject({
      action: 'block',
      guardStatus: 'BLOCKLIST',
      listResult: 'block',
    });
    expect(decide(s, request({ remoteAddr: '192.0.2.66' }), ports()).action).toBe('block');
    expect(decide(s, request({ uri: '/shop' }), ports()).action).toBe('pass');
  });

  it('the pass list wins when both lists hold the same content', () => {
    const same = { pathEnabled: true, paths: ['^/admin'], ipEnabled: true, ips: ['192.0.2.66'] };
    const s = site({ passList: same, blockList: same });
    expect(decide(s, request({ uri: '/admin' }), ports()).listResult).toBe('pass');
    expect(decide(s, request({ remoteAddr: '192.0.2.66' }), ports()).action).toBe('pass');
  });

  it('a switched-off list is ignored', () => {
    const s = site({ blockList: { pathEnabled: false, paths: ['^/admin'], ipEnabled: false, ips: ['0.0.0.0/0'] } });
    expect(decide(s, request({ uri: '/admin' }), ports()).action).toBe('pass');
  });

  it('lists match the resolved source IP, not the proxy', () => {
    const s = site({
      blockList: { pathEnabled: false, paths: [], ipEnabled: true, ips: ['198.51.100.1'] },
      sourceIp: { mode: 'x_real_ip', xffMode: 'leftmost', trustedSources: [], customHeader: '' },
    });
    expect(decide(s, request({ headers: { 'x-real-ip': '198.51.100.1' } }), ports()).action).toBe('block');
  });
});

describe('threat store, WAF and anti-bot', () => {
  it('a client in the threat store is denied by edition A sites that query it and by every edition B site', () => {
    expect(decide(site(), request(), ports({ banned: ['203.0.113.9'] }))).toMatchObject({
      action: 'block',
      guardStatus: 'REPUTATION',
    });
    const a = ports({ banned: ['203.0.113.9'], edition: 'A' });
    expect(decide(site({}, 'A'), request(), a).guardStatus).toBe('REPUTATION');
    expect(decide(site({ queryThreatStore: false }, 'A'), request(), a).action).toBe('pass');
    expect(decide(site({ queryThreatStore: false }), request(), ports({ banned: ['203.0.113.9'] })).guardStatus).toBe(
      'REPUTATION',
    );
  });

  it('the global lists apply to every site after its own lists: pass wins, block blocks', () => {
    const lists = ports({
      globalList: (ip) => (ip === '203.0.113.9' ? 'block' : ip === '198.51.100.1' ? 'pass' : null),
    });
    expect(decide(site(), request(), lists)).toMatchObject({
      action: 'block',
      guardStatus: 'BLOCKLIST',
      listResult: 'block',
    });
    expect(decide(site(), request({ remoteAddr: '198.51.100.1' }), lists)).toMatchObject({
      guardStatus: 'IGNORE',
      listResult: 'pass',
    });
    const ownPass = site({ passList: { pathEnabled: false, paths: [], ipEnabled: true, ips: ['203.0.113.9'] } });
    expect(decide(ownPass, request(), lists).guardStatus).toBe('IGNORE');
  });

  it("a rule's ban holds on its own site whatever the threat-store switch, and only there", () => {
    const s = site({ queryThreatStore: false }, 'A');
    const bans = ports({ siteBans: [`${s.id}:203.0.113.9`], edition: 'A' });
    expect(decide(s, request(), bans)).toMatchObject({ action: 'block', guardStatus: 'REPUTATION' });
    expect(decide({ ...site({}, 'A'), id: 'other-site' }, request(), bans).guardStatus).toBe('PASS');
  });

  it('a WAF match blocks with the edition guard status and carries the rule ids', () => {
    const waf = () => ({ blocked: true, ruleIds: ['942100'], categories: ['sqli'], score: 5 });
    expect(decide(site(), request(), ports({ inspect: waf }))).toMatchObject({
      guardStatus: 'OWASP',
      waf: { ruleIds: ['942100'] },
    });
    expect(decide(site({}, 'A'), request(), ports({ inspect: waf, edition: 'A' })).guardStatus).toBe('BLOCKED_BY_WAF');
  });

  it('a plugin-access client denied after a basic rule fired is blocked before its token is read', () => {
    const denied = ports({ wafDenied: (_s, ip) => ip === '203.0.113.9', tokens: {} });
    expect(decide(site({ accessMethod: 'plugin' }), request({ cookie: '' }), denied)).toMatchObject({
      action: 'block',
      guardStatus: 'OWASP',
    });
    expect(
      decide(site({ accessMethod: 'plugin' }), request({ remoteAddr: '198.51.100.7', cookie: '' }), denied).guardStatus,
    ).toBe('TOKEN_MISS');
    expect(decide(site({ accessMethod: 'plugin', runMode: 'monitor' }), request(), denied)).toMatchObject({
      action: 'pass',
      guardStatus: 'OWASP',
    });
  });

  it('anti-bot rules block enabled bot types only', () => {
    const s = site({ antiBot: { enabled: true, scanner: true, scriptTool: false, otherCrawler: true } });
    expect(decide(s, request({ ua: 'sqlmap/1.7' }), ports())).toMatchObject({ guardStatus: 'BOT', botType: 'scanner' });
    expect(decide(s, request({ ua: 'curl/8.0' }), ports()).guardStatus).toBe('PASS');
    expect(decide(s, request({ ua: 'somecrawler/1' }), ports()).guardStatus).toBe('BOT');
    const off = site({ antiBot: { enabled: false, scanner: true, scriptTool: true, otherCrawler: true } });
    expect(decide(off, request({ ua: 'sqlmap/1.7' }), ports()).guardStatus).toBe('PASS');
  });

  it('plugin-less access skips lists and the threat store and leaves the decision to the gateway', () => {
    const s = site(
      { accessMethod: 'pluginless', blockList: { pathEnabled: true, paths: ['/'], ipEnabled: false, ips: [] } },
      'A',
    );
    expect(decide(s, request(), ports({ banned: ['203.0.113.9'], edition: 'A' })).guardStatus).toBe('PASS');
  });
});

describe('cookies', () => {
  it('finds one cookie among many, including quoted values, and ignores look-alikes', () => {
    expect(cookieValue('a=1; rampart_token=xyz; b=2', 'rampart_token')).toBe('xyz');
    expect(cookieValue('xrampart_token=no; rampart_token="q"', 'rampart_token')).toBe('q');
    expect(cookieValue('rampart_tokenx=no', 'rampart_token')).toBe('');
    expect(cookieValue(';;;=;garbage', 'rampart_token')).toBe('');
    expect(cookieValue(undefined, 'rampart_token')).toBe('');
  });
});
