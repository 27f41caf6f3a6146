export declare const JEMALLOC_PATHS: readonly string[];
export declare const JEMALLOC_CONF: string;

export declare function engineEnvironment(
  env?: NodeJS.ProcessEnv,
  options?: { platform?: NodeJS.Platform; exists?: (path: string) => boolean },
): { env: NodeJS.ProcessEnv; allocator: 'jemalloc' | 'system' };
