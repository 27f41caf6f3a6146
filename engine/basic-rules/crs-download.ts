/**
 * Fetches one file over HTTPS (or HTTP, for an internal mirror) into memory, reporting bytes received
 * against the announced total. Redirects are followed (GitHub's release links redirect to its file
 * store), never from HTTPS down to HTTP. Integrity is not this file's job: the caller compares the
 * bytes with a pinned SHA-256, so a mirror needs no more trust than the network to it.
 */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { rootCertificates } from 'node:tls';

export type DownloadFailure =
  /** Nothing answered: refused, unknown host, timed out, or a TLS handshake that failed. */
  | { kind: 'unreachable'; detail: string }
  /** The server's certificate is not trusted (nor by the extra authorities given). */
  | { kind: 'untrusted'; detail: string }
  | { kind: 'http_status'; status: number }
  | { kind: 'too_large'; limit: number }
  /** The connection ended before the announced length (or broke mid-body). */
  | { kind: 'truncated'; received: number; expected: number | null }
  | { kind: 'bad_url'; detail: string };

export type DownloadResult = { ok: true; value: Buffer } | { ok: false; error: DownloadFailure };

export interface DownloadRequest {
  url: string;
  /** Certificate authorities (PEM) trusted besides the system's, e.g. an internal mirror's. */
  extraCa?: string | undefined;
  maxBytes: number;
  /** Idle time, connecting or between chunks, after which the attempt is given up. */
  idleTimeoutMs: number;
  onProgress?: (received: number, total: number | null) => void;
}

const MAX_REDIRECTS = 5;
/** OpenSSL / Node codes of a certificate that failed verification. */
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

export function downloadFile(request: DownloadRequest): Promise<DownloadResult> {
  const ca = request.extraCa ? [...rootCertificates, request.extraCa] : undefined;
  return attempt(request, request.url, ca, 0);
}

function attempt(
  request: DownloadRequest,
  address: string,
  ca: string[] | undefined,
  redirects: number,
): Promise<DownloadResult> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return Promise.resolve({ ok: false, error: { kind: 'bad_url', detail: 'not an absolute URL' } });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return Promise.resolve({ ok: false, error: { kind: 'bad_url', detail: `unsupported scheme ${url.protocol}` } });
  }
  return new Promise<DownloadResult>((resolve) => {
    let settled = false;
    const finish = (result: DownloadResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let responded = false;
    const onResponse = (res: IncomingMessage): void => {
      responded = true;
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) {
          finish({ ok: false, error: { kind: 'bad_url', detail: 'too many redirects' } });
          return;
        }
        const next = new URL(res.headers.location, url);
        if (url.protocol === 'https:' && next.protocol !== 'https:') {
          finish({ ok: false, error: { kind: 'bad_url', detail: 'redirected from HTTPS to HTTP' } });
          return;
        }
        void attempt(request, next.href, ca, redirects + 1).then(finish);
        return;
      }
      if (status !== 200) {
        res.resume();
        finish({ ok: false, error: { kind: 'http_status', status } });
        return;
      }
      const announced = Number(res.headers['content-length']);
      const total = Number.isSafeInteger(announced) && announced >= 0 ? announced : null;
      if (total !== null && total > request.maxBytes) {
        res.destroy();
        finish({ ok: false, error: { kind: 'too_large', limit: request.maxBytes } });
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      request.onProgress?.(0, total);
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > request.maxBytes) {
          res.destroy();
          finish({ ok: false, error: { kind: 'too_large', limit: request.maxBytes } });
          return;
        }
        chunks.push(chunk);
        request.onProgress?.(received, total);
      });
      res.on('end', () => {
        if (!res.complete || (total !== null && received !== total)) {
          finish({ ok: false, error: { kind: 'truncated', received, expected: total } });
          return;
        }
        finish({ ok: true, value: Buffer.concat(chunks, received) });
      });
      // A connection that breaks mid-body ends here, without 'end'.
      res.on('close', () => finish({ ok: false, error: { kind: 'truncated', received, expected: total } }));
      res.on('error', () => finish({ ok: false, error: { kind: 'truncated', received, expected: total } }));
    };
    const options = { timeout: request.idleTimeoutMs, ...(ca ? { ca } : {}) };
    const req = url.protocol === 'https:' ? httpsGet(url, options, onResponse) : httpGet(url, options, onResponse);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // After the response began, the body's own handlers report the break.
      if (responded) return;
      const detail = error.code ?? error.message;
      finish({ ok: false, error: { kind: CERTIFICATE_ERROR.test(detail) ? 'untrusted' : 'unreachable', detail } });
    });
  });
}
