import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SitesService, compilePathRegexList, siteInputSchema, type SiteInput } from '#engine/sites';
import { ConfigStore } from '#engine/config-store';
import { ManualClock, cryptoRandom, RampartError, customRuleInputSchema } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-site-safety-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function service(): Promise<SitesService> {
  return new SitesService({ store: await ConfigStore.open(dir, clock), clock, random: cryptoRandom, edition: 'B' });
}

async function failure(p: Promise<unknown> | (() => unknown)): Promise<RampartError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as RampartError;
  }
  throw new Error('accepted');
}

const fieldsRefused = (over: Partial<SiteInput>): string[] => {
  const result = siteInputSchema.safeParse({ name: 'Shop', domain: 'shop.example.com', ...over });
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
};

describe('free text that could rewrite a generated file or mislead a reader', () => {
  it.each([
    ['a newline', 'x\nlocation ^~ /open { return 200 "injected"; }\n#'],
    ['a carriage return', 'shop\rserver'],
    ['NUL', 'shop\u0000'],
    ['a right-to-left override', 'invoice\u202Etxt.exe'],
    ['a bidi isolate', 'shop\u2066x'],
    ['a lone surrogate', 'shop\ud800'],
    ['a line separator', 'shop\u2028x'],
  ])('a site name with %s is refused, naming the field', (_what, name) => {
    expect(fieldsRefused({ name })).toEqual(['name']);
  });

  it('ordinary names in any script, with emoji, are accepted', () => {
    expect(fieldsRefused({ name: '商城 — Shop ✓ 🛒' })).toEqual([]);
  });

  it('account-extraction fields refuse control characters too', () => {
    expect(
      fieldsRefused({
        accountExtraction: {
          enabled: true,
          loginPath: '/login\n',
          usernameSelector: '#user',
        },
      }),
    ).toEqual(['accountExtraction.loginPath']);
  });

  it('page content keeps its line breaks but not other controls', () => {
    expect(fieldsRefused({ blockContent: '<p>blocked</p>\n\t<p>sorry</p>\r\n' })).toEqual([]);
    expect(fieldsRefused({ blockContent: '<p>blocked\u0000</p>' })).toEqual(['blockContent']);
  });

  it('a domain label longer than 63 characters is refused', () => {
    expect(fieldsRefused({ domain: `${'a'.repeat(64)}.example.com` })).toEqual(['domain']);
    expect(fieldsRefused({ domain: `${'a'.repeat(63)}.example.com` })).toEqual([]);
  });

  it('list entries with control characters are refused with their line', async () => {
    const sites = await service();
    const settings = siteInputSchema.parse({
      name: 'Shop',
      domain: 'shop.example.com',
      blockList: { pathEnabled: true, paths: ['/admin', '/x\u202E'], ipEnabled: false, ips: [] },
    });
    const error = await failure(sites.create(settings));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'blockList.paths', params: { line: 2 } });
  });
});

describe('edition B path regexes', () => {
  it('a backreference is refused before it can stall the engine', async () => {
    const error = await failure(() => compilePathRegexList(['^/(a+)+\\1$'], 'passList.paths'));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'passList.paths', params: { line: 1 } });
    expect(error.message).toMatch(/linear time/);
  });

  it('a lookahead is refused with the same message', async () => {
    const error = await failure(() => compilePathRegexList(['/ok', '^/(?=admin)'], 'blockList.paths'));
    expect(error).toMatchObject({ field: 'blockList.paths', params: { line: 2 } });
    expect(error.message).toMatch(/backreferences and lookarounds/);
  });

  it('a catastrophic pattern without a backreference finishes quickly on a hostile path', () => {
    const list = compilePathRegexList(['^/(a+)+$'], 'blockList.paths');
    const start = performance.now();
    expect(list.test(`/${'a'.repeat(34)}!`)).toBe(false);
    expect(list.test(`/${'a'.repeat(50_000)}!`)).toBe(false);
    expect(performance.now() - start).toBeLessThan(500);
  });

  it('each line is its own regex: the same named group on two lines is fine', () => {
    const list = compilePathRegexList(['^/(?<p>api)/', '^/(?<p>admin)/'], 'blockList.paths');
    expect(list.test('/admin/users')).toBe(true);
    expect(list.test('/shop')).toBe(false);
  });

  it('a group number in one line does not refer to another line', () => {
    // Joined into one regex, `\1` would name line 1's group (empty when unmatched) and match "/y".
    const list = compilePathRegexList(['^/(x)', '^/y\\1'], 'blockList.paths');
    expect(list.test('/y')).toBe(false);
    expect(list.test('/x')).toBe(true);
  });
});

describe('a save reports every bad field and line at once', () => {
  it('three bad lines in two lists and a missing domain come back in one error', async () => {
    const sites = await service();
    const settings = siteInputSchema.parse({
      name: 'Shop',
      domain: '',
      blockList: {
        pathEnabled: true,
        paths: ['(', '/ok', '[z-a]'],
        ipEnabled: true,
        ips: ['203.0.113.7', 'not-an-ip'],
      },
    });
    const error = await failure(sites.create(settings));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.problems.map((p) => [p.field, p.params?.line])).toEqual([
      ['domain', undefined],
      ['blockList.paths', 1],
      ['blockList.paths', 3],
      ['blockList.ips', 2],
    ]);
    expect(error.field).toBe('domain');
  });
});

describe('custom rule names and remarks', () => {
  it('refuse control and bidi characters, naming the field', () => {
    const result = customRuleInputSchema.safeParse({
      name: 'rule\u202E',
      remark: 'line one\nline two',
      location: 'url',
      conditions: [{ location: 'url', pattern: '^/x' }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['name', 'remark']);
  });
});
