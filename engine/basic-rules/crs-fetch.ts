/**
 * Getting a CRS release from its download address: fetching the archive (checked against its pinned
 * SHA-256 when one is known) and, once unpacked, checking the release's content against its pinned
 * content hash. The rule-set manager runs it for the console's "get CRS" button, and the desktop
 * build (scripts/fetch-crs-release.ts) to carry the release in its installers.
 */
import { downloadFile, type DownloadFailure } from './crs-download.ts';
import { releaseContentSha256 } from './crs-digest.ts';
import type { CrsPin } from './crs-releases.ts';
import { createHash } from 'node:crypto';

export type RuleSetDownloadFailureCode =
  'unreachable' | 'untrusted' | 'http_status' | 'too_large' | 'truncated' | 'hash_mismatch' | 'bad_url' | 'refused';

export interface RuleSetDownloadFailure {
  code: RuleSetDownloadFailureCode;
  message: string;
  params: Record<string, string | number>;
}

export type FetchResult<T> = { ok: true; value: T } | { ok: false; error: RuleSetDownloadFailure };

export interface ReleaseDownload {
  version: string;
  url: string;
  pin: CrsPin;
  /** Certificate authorities (PEM) trusted besides the system's, e.g. an internal mirror's. */
  extraCa?: string | undefined;
  maxBytes: number;
  idleTimeoutMs: number;
  onProgress?: (received: number, total: number | null) => void;
}

/** Fetches a release's archive; refused when a SHA-256 is pinned for the archive and its bytes hash otherwise. */
export async function downloadRelease(request: ReleaseDownload): Promise<FetchResult<Buffer>> {
  const result = await downloadFile({
    url: request.url,
    extraCa: request.extraCa,
    maxBytes: request.maxBytes,
    idleTimeoutMs: request.idleTimeoutMs,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
  });
  if (!result.ok) return { ok: false, error: describeDownloadFailure(result.error, request.url) };
  const expected = request.pin.archiveSha256?.toLowerCase() ?? null;
  const actual = createHash('sha256').update(result.value).digest('hex');
  if (expected !== null && actual !== expected) {
    return {
      ok: false,
      error: {
        code: 'hash_mismatch',
        message: `the archive's SHA-256 is ${actual}, not the ${expected} pinned for CRS ${request.version}: refused`,
        params: { version: request.version, expected, actual },
      },
    };
  }
  return { ok: true, value: result.value };
}

/** Null when the unpacked release at `root` hashes to the content hash pinned for it; otherwise the refusal. */
export async function checkReleaseContent(
  root: string,
  version: string,
  pin: CrsPin,
): Promise<RuleSetDownloadFailure | null> {
  const expected = pin.contentSha256.toLowerCase();
  const actual = await releaseContentSha256(root);
  if (actual === expected) return null;
  return {
    code: 'hash_mismatch',
    message: `the release's content hashes to ${actual}, not the ${expected} pinned for CRS ${version}: refused`,
    params: { version, expected, actual },
  };
}

/** The address as shown to people: without a user name or password a mirror's URL may carry. */
export function shownUrl(address: string): string {
  try {
    const url = new URL(address);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return address;
  }
}

function hostOf(address: string): string {
  try {
    return new URL(address).host;
  } catch {
    return address;
  }
}

function describeDownloadFailure(failure: DownloadFailure, url: string): RuleSetDownloadFailure {
  const host = hostOf(url);
  switch (failure.kind) {
    case 'unreachable':
      return {
        code: 'unreachable',
        message: `${host} did not answer (${failure.detail}): upload the release archive instead`,
        params: { host, detail: failure.detail },
      };
    case 'untrusted':
      return {
        code: 'untrusted',
        message: `the certificate of ${host} is not trusted (${failure.detail}): for an internal mirror, give its certificate authority in RAMPART_CRS_DOWNLOAD_CA`,
        params: { host, detail: failure.detail },
      };
    case 'http_status':
      return {
        code: 'http_status',
        message: `${host} answered HTTP ${failure.status} instead of the archive`,
        params: { host, status: failure.status },
      };
    case 'too_large':
      return {
        code: 'too_large',
        message: `the archive is larger than ${failure.limit / 1024 / 1024} MB`,
        params: { limit: failure.limit },
      };
    case 'truncated':
      return {
        code: 'truncated',
        message: `the download broke off after ${failure.received} bytes${failure.expected === null ? '' : ` of ${failure.expected}`}`,
        params: { received: failure.received, expected: failure.expected ?? '' },
      };
    case 'bad_url':
      return {
        code: 'bad_url',
        message: `the download address cannot be used: ${failure.detail}`,
        params: { detail: failure.detail },
      };
  }
}
