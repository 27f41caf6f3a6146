import { describe, expect, it } from 'vitest';
import { engineEnvironment, JEMALLOC_CONF, JEMALLOC_PATHS } from '../../../scripts/engine-allocator.mjs';
import { allocatorInUse } from '#engine/metrics';

const debianLibrary = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';
const hasOnly =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

describe('the engine process allocator', () => {
  it('preloads jemalloc on Linux when the system has it', () => {
    const { env, allocator } = engineEnvironment(
      { PATH: '/usr/bin' },
      { platform: 'linux', exists: hasOnly(debianLibrary) },
    );
    expect(allocator).toBe('jemalloc');
    expect(env.LD_PRELOAD).toBe(debianLibrary);
    expect(env.MALLOC_CONF).toBe(JEMALLOC_CONF);
    expect(env.PATH).toBe('/usr/bin');
  });

  it("leaves an operator's own jemalloc settings alone", () => {
    const { env } = engineEnvironment(
      { MALLOC_CONF: 'narenas:2' },
      { platform: 'linux', exists: hasOnly(debianLibrary) },
    );
    expect(env.MALLOC_CONF).toBe('narenas:2');
  });

  it('puts jemalloc ahead of a preload already set, once', () => {
    const exists = hasOnly(JEMALLOC_PATHS[1]!);
    const first = engineEnvironment({ LD_PRELOAD: '/opt/trace.so' }, { platform: 'linux', exists });
    expect(first.env.LD_PRELOAD).toBe(`${JEMALLOC_PATHS[1]}:/opt/trace.so`);
    const again = engineEnvironment(first.env, { platform: 'linux', exists });
    expect(again.env.LD_PRELOAD).toBe(first.env.LD_PRELOAD);
  });

  it("keeps the system's malloc when asked, when jemalloc is missing, and off Linux", () => {
    const exists = hasOnly(debianLibrary);
    expect(engineEnvironment({ RAMPART_ALLOCATOR: 'system' }, { platform: 'linux', exists })).toEqual({
      env: { RAMPART_ALLOCATOR: 'system' },
      allocator: 'system',
    });
    expect(engineEnvironment({}, { platform: 'linux', exists: hasOnly() }).allocator).toBe('system');
    expect(engineEnvironment({}, { platform: 'darwin', exists }).env.LD_PRELOAD).toBeUndefined();
  });

  it('refuses an allocator it does not know, naming the variable', () => {
    expect(() =>
      engineEnvironment({ RAMPART_ALLOCATOR: 'tcmalloc' }, { platform: 'linux', exists: hasOnly() }),
    ).toThrow(/RAMPART_ALLOCATOR is "tcmalloc": it must be jemalloc or system/);
  });

  it("tells from the process's mappings which malloc runs", () => {
    const mapped = `7f1c2a000000-7f1c2a03c000 r--p 00000000 08:01 1234 ${debianLibrary}\n7f1c2b000000-7f1c2b001000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n`;
    expect(allocatorInUse(mapped)).toBe('jemalloc');
    expect(
      allocatorInUse('7f1c2b000000-7f1c2b001000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n'),
    ).toBe('system');
  });
});
