import type { ServerResponse } from 'node:http';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The proxy's own answers when it cannot give the origin's: 421, 502, 504. */
export function errorPage(status: number, title: string, detail: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${status} ${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;margin:4rem auto;max-width:36rem;color:#161616}h1{font-size:1.5rem}p{line-height:1.5}</style></head><body><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>`;
}

export const PAGE_TEXT = {
  noSite: ['Misdirected Request', 'No site protected here answers to this host name on this port.'],
  badGateway: [
    'Bad Gateway',
    "The protected site's server could not be reached or gave an invalid answer. Try again in a moment; if it persists, tell the site's operator.",
  ],
  gatewayTimeout: [
    'Gateway Timeout',
    "The protected site's server took too long to answer. Try again in a moment; if it persists, tell the site's operator.",
  ],
} as const;

/** Sends an HTML answer with no caching, unless an answer is already under way (then the connection ends). */
export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string | Buffer,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = typeof html === 'string' ? Buffer.from(html) : html;
  res.writeHead(status, {
    ...headers,
    'cache-control': headers['cache-control'] ?? 'no-store',
    'content-type': 'text/html; charset=utf-8',
    'content-length': body.length,
  });
  res.end(body);
}
