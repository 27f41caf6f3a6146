/**
 * Rampart's mini-program SDK (edition B): wraps the platform's request function (`wx.request` and
 * its likes: `{ url, method, data, header, success, fail, complete }`). It imports nothing: the
 * download ships it as one CommonJS file for the mini-program's build.
 *
 * - `start()` reports the platform's system information (the detection data) with the Access Key
 *   and gets the token and identity back; it is asked again at 70 % of the token's life.
 * - `request(options)` calls the platform's function with the token and identity attached as a
 *   Cookie header (a mini-program has no cookie jar), and notes the request's method, URL, status
 *   and duration; the notes go to the site's messaging-app log in batches (`flush()`, every
 *   `flushMs`, or at `maxBatch`).
 * - Monitoring only: a failing or unreachable Rampart never stops a request (it goes without a
 *   token), and nothing here retries a request or changes its answer.
 */

/** The platform's request options (the subset Rampart touches; the rest is passed on as given). */
export interface PlatformRequestOptions {
  url: string;
  method?: string;
  data?: unknown;
  header?: Record<string, string>;
  success?: (result: PlatformRequestResult) => void;
  fail?: (error: { errMsg: string }) => void;
  complete?: (result: unknown) => void;
  [option: string]: unknown;
}

export interface PlatformRequestResult {
  statusCode: number;
  data: unknown;
  header?: Record<string, string>;
}

/** The platform object (`wx`, `my`, `tt`...): its request function and, when present, system information and storage. */
export interface MiniProgramPlatform {
  request(options: PlatformRequestOptions): unknown;
  getSystemInfoSync?: () => Record<string, unknown>;
  getStorageSync?: (key: string) => unknown;
  setStorageSync?: (key: string, value: string) => void;
}

export interface RampartOptions {
  platform: MiniProgramPlatform;
  /** Rampart's gateway address as a URL, e.g. `https://rampart.example.com:9081` (the download's config). */
  gateway: string;
  siteId: string;
  accessKey: string;
  /** Request notes are sent at least this often (default 5000 ms; 0: only by flush() and maxBatch). */
  flushMs?: number;
  /** ... and as soon as this many wait (default 20, at most 50). */
  maxBatch?: number;
}

interface Credential {
  name: string;
  value: string;
}

interface Note {
  method: string;
  url: string;
  status: number;
  durationMs: number;
  error?: string;
}

const IDENTITY_KEY = 'rampart_identity';
const REPORT_PATH = '/_rampart/mp/report';

/** System information fields reported (strings, numbers and booleans only, bounded). */
function deviceOf(platform: MiniProgramPlatform): Record<string, string | number | boolean> {
  const device: Record<string, string | number | boolean> = {};
  let info: Record<string, unknown>;
  try {
    info = platform.getSystemInfoSync?.() ?? {};
  } catch {
    info = {};
  }
  for (const key of Object.keys(info).slice(0, 40)) {
    const value = info[key];
    if (typeof value === 'string') device[key.slice(0, 64)] = value.slice(0, 256);
    else if (typeof value === 'number' || typeof value === 'boolean') device[key.slice(0, 64)] = value;
  }
  return device;
}

export interface Rampart {
  /** Reports the detection data and gets the token; resolves false when Rampart did not answer with one. */
  start(): Promise<boolean>;
  /** The platform's request function with the token and identity attached and the request noted. */
  request(options: PlatformRequestOptions): unknown;
  /** Sends the noted requests now. */
  flush(): Promise<void>;
  /** The Cookie header attached to requests ('' before start() succeeded). */
  cookie(): string;
  /** Stops the timers (tests, page unload). */
  stop(): void;
}

export function createRampart(options: RampartOptions): Rampart {
  const { platform } = options;
  const base = options.gateway.replace(/\/+$/, '');
  const maxBatch = Math.min(Math.max(options.maxBatch ?? 20, 1), 50);
  const flushMs = options.flushMs ?? 5000;
  const original = platform.request.bind(platform);
  let token: Credential | null = null;
  let identity: Credential | null = null;
  let notes: Note[] = [];
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  let flushTimer: ReturnType<typeof setInterval> | undefined;

  try {
    const stored = platform.getStorageSync?.(IDENTITY_KEY);
    if (typeof stored === 'string' && stored.includes('=')) {
      const at = stored.indexOf('=');
      identity = { name: stored.slice(0, at), value: stored.slice(at + 1) };
    }
  } catch {
    identity = null;
  }

  const cookie = (): string => [token, identity].flatMap((c) => (c ? [`${c.name}=${c.value}`] : [])).join('; ');

  /** A POST to Rampart through the platform's own function (the only network access a mini-program has). */
  const post = (body: unknown): Promise<PlatformRequestResult | null> =>
    new Promise((resolve) => {
      const header: Record<string, string> = {
        'content-type': 'application/json',
        'x-rampart-site': options.siteId,
        'x-rampart-key': options.accessKey,
      };
      const jar = cookie();
      if (jar !== '') header.cookie = jar;
      try {
        original({
          url: `${base}${REPORT_PATH}`,
          method: 'POST',
          data: JSON.stringify(body),
          header,
          success: (result) => resolve(result),
          fail: () => resolve(null),
        });
      } catch {
        resolve(null);
      }
    });

  const start = async (event: 'launch' | 'refresh' = 'launch'): Promise<boolean> => {
    const result = await post({ v: 1, event, device: deviceOf(platform) });
    if (result === null || result.statusCode !== 200) return false;
    let answer = result.data as {
      ttl?: unknown;
      token?: Credential | null;
      identity?: Credential | null;
    } | null;
    if (typeof answer === 'string') {
      try {
        answer = JSON.parse(answer) as typeof answer;
      } catch {
        return false;
      }
    }
    if (!answer?.token) return false;
    token = answer.token;
    if (answer.identity) {
      identity = answer.identity;
      try {
        platform.setStorageSync?.(IDENTITY_KEY, `${identity.name}=${identity.value}`);
      } catch {
        /* storage full or refused: the identity lasts this launch */
      }
    }
    const ttl = typeof answer.ttl === 'number' && answer.ttl > 0 ? answer.ttl : 60;
    if (refreshTimer !== undefined) clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => void start('refresh'), Math.max(1000, ttl * 700));
    return true;
  };

  const flush = async (): Promise<void> => {
    if (notes.length === 0) return;
    const batch = notes;
    notes = [];
    await post({ v: 1, event: 'requests', requests: batch });
  };

  if (flushMs > 0) flushTimer = setInterval(() => void flush(), flushMs);

  const note = (entry: Note): void => {
    notes.push(entry);
    if (notes.length >= maxBatch) void flush();
  };

  const request = (given: PlatformRequestOptions): unknown => {
    const began = Date.now();
    const method = (given.method ?? 'GET').toUpperCase();
    const header: Record<string, string> = { ...given.header };
    const jar = cookie();
    if (jar !== '') {
      const key = Object.keys(header).find((k) => k.toLowerCase() === 'cookie');
      if (key === undefined) header.cookie = jar;
      else header[key] = `${header[key]}; ${jar}`;
    }
    return original({
      ...given,
      header,
      success: (result) => {
        note({ method, url: given.url.slice(0, 2048), status: result.statusCode, durationMs: Date.now() - began });
        given.success?.(result);
      },
      fail: (error) => {
        note({
          method,
          url: given.url.slice(0, 2048),
          status: 0,
          durationMs: Date.now() - began,
          error: String(error?.errMsg ?? 'request failed').slice(0, 256),
        });
        given.fail?.(error);
      },
    });
  };

  return {
    start: () => start('launch'),
    request,
    flush,
    cookie,
    stop: () => {
      if (refreshTimer !== undefined) clearTimeout(refreshTimer);
      if (flushTimer !== undefined) clearInterval(flushTimer);
    },
  };
}
