/** Reload and block pages, and the tag that puts the probe on a page. */

export const DEFAULT_RELOAD_CONTENT = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Checking your browser</title></head>
<body><p>Checking your browser; this page reloads by itself in a moment.</p>
<noscript><p>Please enable JavaScript and reload this page.</p></noscript>
</body></html>`;

export const DEFAULT_BLOCK_CONTENT = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Access denied</title></head>
<body><p>This request was blocked by the site's protection. If you think this is a mistake, contact the site's operator.</p>
</body></html>`;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<script src>` for the probe: what gateways inject into pages, or sites include (page mode). */
export function probeScriptTag(src: string, options: { nonce?: string } = {}): string {
  const nonce = options.nonce === undefined ? '' : ` nonce="${escapeAttribute(options.nonce)}"`;
  return `<script src="${escapeAttribute(src)}" async${nonce}></script>`;
}

/** An inline `<script>`; `</` is split so the text cannot close the element early. */
export function inlineScriptTag(script: string, options: { nonce?: string } = {}): string {
  const nonce = options.nonce === undefined ? '' : ` nonce="${escapeAttribute(options.nonce)}"`;
  return `<script${nonce}>${script.replace(/<\//g, '<\\/')}</script>`;
}

export interface ReloadPageInput {
  /** The site's reload response content; empty or absent: the default page. */
  content?: string | null;
  /** URL of the probe in reload mode. */
  probeScriptUrl?: string;
  /** Or the rendered probe itself, inlined: saves a round trip. One of the two is required. */
  inlineScript?: string;
  nonce?: string;
}

/**
 * The body of the reload response (status 412 by default, set by the caller). The content is the
 * operator's and need not know about the probe: the script goes before the last `</body>`, or at the
 * end when there is none.
 */
export function reloadPage(input: ReloadPageInput): string {
  const content = input.content ? input.content : DEFAULT_RELOAD_CONTENT;
  const options = input.nonce === undefined ? {} : { nonce: input.nonce };
  let tag: string;
  if (input.inlineScript !== undefined) tag = inlineScriptTag(input.inlineScript, options);
  else if (input.probeScriptUrl !== undefined) tag = probeScriptTag(input.probeScriptUrl, options);
  else throw new TypeError('reloadPage needs probeScriptUrl or inlineScript');
  return injectBeforeBodyEnd(content, tag);
}

export function injectBeforeBodyEnd(html: string, snippet: string): string {
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? html + snippet : html.slice(0, at) + snippet + html.slice(at);
}
