/**
 * XSS detection: tokenize the value as HTML from each context it could land in, and flag what makes
 * a browser run script: script-capable elements, event-handler attributes, script URLs, style with
 * script, IE conditional comments. Ordinary markup (what rich-text editors send: `<p>`, `<a href=
 * "https://...">`, `<img src=...>`, `<span style="color:red">`) is not flagged.
 */
import { decodedUrl } from './html-entities.ts';
import { scanHtml, type HtmlContext, type HtmlSink } from './html-tokenizer.ts';

/** Elements that run script, load active content, or re-base / redirect the page. */
const DANGEROUS_TAGS = new Set([
  'script',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'base',
  'meta',
  'link',
  'style',
  'svg',
  'math',
  'xml',
  'import',
  'vmlframe',
  'isindex',
  'portal',
]);

/**
 * Event-handler names that count when the value only breaks out of an attribute (no tag of its
 * own), where a word like `one=` or `online=` is more likely text. Inside a tag, any `on…=` counts.
 */
const EVENTS = new Set(
  (
    'abort activate afterprint afterscriptexecute animationcancel animationend animationiteration animationstart ' +
    'auxclick beforecopy beforecut beforeinput beforeprint beforescriptexecute beforetoggle beforeunload begin blur ' +
    'bounce canplay canplaythrough change click close contextmenu copy cuechange cut dblclick drag dragend dragenter ' +
    'dragleave dragover dragstart drop durationchange emptied end ended error focus focusin focusout formdata ' +
    'fullscreenchange hashchange input invalid keydown keypress keyup load loadeddata loadedmetadata loadend ' +
    'loadstart message mousedown mouseenter mouseleave mousemove mouseout mouseover mouseup mousewheel ' +
    'offline online pagehide pageshow paste pause play playing pointercancel pointerdown pointerenter ' +
    'pointerleave pointermove pointerout pointerover pointerrawupdate pointerup popstate progress ratechange repeat ' +
    'reset resize scroll scrollend search seeked seeking select selectionchange selectstart show start ' +
    'stalled storage submit suspend timeupdate toggle touchend touchmove touchstart transitioncancel ' +
    'transitionend transitionrun transitionstart unload volumechange waiting webkitanimationend wheel'
  )
    .split(' ')
    .map((e) => `on${e}`),
);

/** Attributes whose value is fetched or navigated to. */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'data',
  'lowsrc',
  'dynsrc',
  'background',
  'poster',
  'codebase',
  'code',
  'archive',
  'usemap',
  'longdesc',
  'cite',
  'ping',
  'icon',
  'manifest',
  'to',
  'from',
  'values',
  'by',
]);

const SCRIPT_SCHEME = /^(?:java|vb|live)script:|^mocha:/;
const ACTIVE_DATA = /^data:(?!image\/(?:png|gif|jpe?g|webp|bmp|avif|x-icon)[;,])/;
const STYLE_SCRIPT = /expression\(|(?:java|vb)script:|behavior:|-moz-binding|@import/;
/** SVG animation lists (`values="a;javascript:..."`): any item can be the URL set. */
const SCRIPT_IN_LIST = /;(?:java|vb|live)script:/;

/** CSS without its comments: `ex/**\/pression(` is `expression(` to a browser. */
function withoutCssComments(css: string): string {
  let open = css.indexOf('/*');
  if (open < 0) return css;
  let out = '';
  let from = 0;
  while (open >= 0) {
    out += css.slice(from, open);
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return out;
    from = close + 2;
    open = css.indexOf('/*', from);
  }
  return out + css.slice(from);
}

/** A DOCTYPE with an internal subset or an external DTD, or an entity declaration: XXE. */
function isEntityDeclaration(s: string, start: number, end: number): boolean {
  const head = s.slice(start, Math.min(end, start + 7)).toLowerCase();
  if (head.startsWith('entity')) return true;
  if (head !== 'doctype') return false;
  const body = s.slice(start + 7, Math.min(end, start + 4096)).toLowerCase();
  return body.includes('[') || body.includes('system') || body.includes('entity');
}

function localName(s: string, start: number, end: number): string {
  // `x:script` is a script element in XHTML whatever the prefix.
  const colon = s.lastIndexOf(':', end - 1);
  const from = colon >= start ? colon + 1 : start;
  return end - from > 16 ? '' : s.slice(from, end).toLowerCase();
}

class Finder implements HtmlSink {
  s = '';
  /** Inside a tag the value opened itself (not only an attribute the value broke into). */
  inOwnTag = false;

  tag(start: number, end: number, isEnd: boolean): boolean {
    this.inOwnTag = true;
    if (isEnd) return false;
    return DANGEROUS_TAGS.has(localName(this.s, start, end));
  }

  attribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): boolean {
    const s = this.s;
    if (valueStart < 0) return false;
    const name = nameEnd - nameStart <= 32 ? s.slice(nameStart, nameEnd).toLowerCase() : '';
    if (name.length > 2 && name.charCodeAt(0) === 0x6f && name.charCodeAt(1) === 0x6e) {
      // on…= : an event handler. A real tag of the value's own makes any on-name suspicious.
      if (EVENTS.has(name) || (this.inOwnTag && name.length >= 5)) return true;
    }
    // The value the input started inside (no name of its own) is judged whole by isScriptUrl.
    if (nameEnd === nameStart) return false;
    const local = name.includes(':') ? name.slice(name.lastIndexOf(':') + 1) : name;
    if (local === 'srcdoc') return true;
    if (URL_ATTRIBUTES.has(local)) {
      // A scheme matters only where the value is fetched or navigated to: `title="JavaScript: the
      // good parts"` is text. (Elements whose other attributes can hold URLs, such as meta's
      // content or param's value, are flagged by their tag.) What the browser reads: references
      // decoded (`javascript&colon;`), tabs and newlines dropped.
      const value = decodedUrl(s, valueStart, valueEnd, 64);
      if (SCRIPT_SCHEME.test(value) || ACTIVE_DATA.test(value)) return true;
    }
    if (local === 'values' && SCRIPT_IN_LIST.test(decodedUrl(s, valueStart, valueEnd, 1024))) return true;
    if (local === 'style') return STYLE_SCRIPT.test(withoutCssComments(decodedUrl(s, valueStart, valueEnd, 4096)));
    return false;
  }

  comment(start: number, end: number): boolean {
    // IE conditional comments run their content: <!--[if IE]> ... <![endif]-->
    if (end - start >= 3 && /^\s*\[if\b/i.test(this.s.slice(start, Math.min(end, start + 16)))) return true;
    return isEntityDeclaration(this.s, start, end);
  }
}

const finder = new Finder();

function scan(s: string, context: HtmlContext): boolean {
  finder.s = s;
  finder.inOwnTag = false;
  return scanHtml(s, context, finder);
}

/**
 * Whether the value's first visible character could begin `javascript:`, `vbscript:`,
 * `livescript:`, `mocha:` or `data:`, or is a character reference: a check of a few bytes that spares
 * most values the decoding in isScriptUrl.
 */
function mayOpenWithScheme(s: string): boolean {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) <= 0x20) i++;
  const c = s.charCodeAt(i) | 0x20;
  return c === 0x6a || c === 0x76 || c === 0x6c || c === 0x6d || c === 0x64 || c === 0x26; // j v l m d &
}

/** A whole value that is a script URL (`javascript:alert(1)` as a link target). */
function isScriptUrl(s: string): boolean {
  const head = decodedUrl(s, 0, s.length, 24);
  if (!SCRIPT_SCHEME.test(head) && !/^data:(?:text\/html|application\/xhtml|image\/svg)/.test(head)) return false;
  // `javascript: the good parts` is a book title, not code.
  return /[(=`;[]|%[0-9a-f]{2}|&#/i.test(s.slice(0, 512)) || head.startsWith('data:');
}

export function detectXssIn(s: string): boolean {
  if (s.length === 0) return false;
  const lt = s.includes('<');
  const eq = s.includes('=');
  if (lt && scan(s, 'data')) return true;
  if (mayOpenWithScheme(s) && (s.includes(':') || s.includes('&')) && isScriptUrl(s)) return true;
  if (!eq && !lt) return false;
  if (s.includes('"') && scan(s, 'double')) return true;
  if (s.includes("'") && scan(s, 'single')) return true;
  if (eq && scan(s, 'unquoted')) return true;
  return false;
}
