import { readFileSync } from 'node:fs';

export type Allocator = 'jemalloc' | 'system' | 'unknown';

/**
 * The malloc this process runs with: jemalloc when its library is mapped (the launchers preload it,
 * scripts/engine-allocator.mjs), else the system's; unknown where /proc cannot say (not Linux).
 * `maps` is /proc/self/maps' text, for tests.
 */
export function allocatorInUse(maps?: string): Allocator {
  let text = maps;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/maps', 'utf8');
    } catch {
      return 'unknown';
    }
  }
  return /\/libjemalloc\.so[^\n]*$/m.test(text) ? 'jemalloc' : 'system';
}
