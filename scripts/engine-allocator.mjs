// The memory allocator of the engine process. LevelDB (the log store) and OpenSSL (TLS intake and
// console) allocate and free many small blocks on libuv's worker threads; glibc's malloc keeps a
// heap per thread and returns freed pages only from a heap's top, so a burst (a large export, the
// catch-up after a restart) leaves the process hundreds of megabytes larger for good. jemalloc
// gives pages that stay unused for about ten seconds back to the system. The engine is started
// with it preloaded when the system has it (Debian / Ubuntu package `libjemalloc2`, which
// `npm run setup:system` installs), and with the system's malloc otherwise or when
// RAMPART_ALLOCATOR=system. Only on Linux; not for the desktop app's engine, which runs in
// Electron's utility process (Chromium has its own allocator there).
import { existsSync } from 'node:fs';

/** Where Debian, Ubuntu and Red Hat family systems put jemalloc's shared library. */
export const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
];

/**
 * jemalloc's settings unless MALLOC_CONF says otherwise. Node reads each socket into a 64 KB block
 * and then shrinks it to what arrived; jemalloc's per-thread caches stop at 32 KB, so at its
 * defaults every read took a trip through the arena and the verdict path ran about 10 % slower
 * per core than on glibc (bench:verdict, alternated). Caching blocks up to 128 KB per thread
 * brings it level.
 */
export const JEMALLOC_CONF = 'tcache_max:131072';

/**
 * The environment to start the engine process with: `env` plus jemalloc in LD_PRELOAD (ahead of
 * anything already there) and JEMALLOC_CONF as MALLOC_CONF (unless set) when it applies.
 * `allocator` says which was chosen.
 */
export function engineEnvironment(env = process.env, options = {}) {
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? existsSync;
  const wanted = env.RAMPART_ALLOCATOR || 'jemalloc';
  if (wanted !== 'jemalloc' && wanted !== 'system')
    throw new Error(`RAMPART_ALLOCATOR is "${wanted}": it must be jemalloc or system`);
  if (wanted === 'system' || platform !== 'linux') return { env: { ...env }, allocator: 'system' };
  const library = JEMALLOC_PATHS.find((path) => exists(path));
  if (library === undefined) return { env: { ...env }, allocator: 'system' };
  if (env.LD_PRELOAD?.includes('libjemalloc')) return { env: { ...env }, allocator: 'jemalloc' };
  const preload = env.LD_PRELOAD ? `${library}:${env.LD_PRELOAD}` : library;
  return { env: { MALLOC_CONF: JEMALLOC_CONF, ...env, LD_PRELOAD: preload }, allocator: 'jemalloc' };
}
