/**
 * A subset of the HTML5 tokenizer's state machine, enough to find what a browser would take for
 * tags, attributes, attribute values and comments in a value. It reports them to a sink and stops
 * as soon as the sink says so or after a fixed number of events. One pass, no backtracking: linear.
 *
 * Entry context: a value lands in a page either as text (`data`) or inside an attribute value
 * (double-, single- or un-quoted). Starting inside an attribute value, whatever closes it makes the
 * rest of the value attributes of the surrounding tag, or, after `>`, new markup.
 */

export type HtmlContext = 'data' | 'double' | 'single' | 'unquoted';

export interface HtmlSink {
  /** A start tag's name (`isEnd` false) or an end tag's. Return true to stop. */
  tag(start: number, end: number, isEnd: boolean): boolean;
  /** An attribute: its name, and its value's bounds (`valueStart` -1 when it has none). */
  attribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): boolean;
  /** A comment's body (`<!--` body `-->`, or `<!`/`<?` bogus comment body). */
  comment(start: number, end: number): boolean;
}

export const HTML_EVENTS_MAX = 256;

const SPACE = new Uint8Array(256);
for (const c of [0x09, 0x0a, 0x0c, 0x0d, 0x20]) SPACE[c] = 1;

function isSpace(c: number): boolean {
  return c < 256 && SPACE[c] === 1;
}

function isAlpha(c: number): boolean {
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x7a;
}

/**
 * Tokenizes `s` from `context`, reporting to `sink`; returns true when the sink stopped it.
 * States follow the HTML5 names where they exist.
 */
export function scanHtml(s: string, context: HtmlContext, sink: HtmlSink): boolean {
  const len = s.length;
  let p = 0;
  let events = 0;
  // Where we are: 0 data, 1 inside a tag (before an attribute name), 2..4 inside an attribute value.
  let state = context === 'data' ? 0 : context === 'double' ? 2 : context === 'single' ? 3 : 4;
  // Start of the attribute value being read, and its attribute name (empty: the entry value).
  let nameStart = 0;
  let nameEnd = 0;
  let valueStart = 0;

  while (p <= len && events < HTML_EVENTS_MAX) {
    if (state === 0) {
      // Data: look for markup.
      const lt = s.indexOf('<', p);
      if (lt < 0) return false;
      p = lt + 1;
      const c = s.charCodeAt(p);
      if (isAlpha(c) || (c === 0x2f && isAlpha(s.charCodeAt(p + 1)))) {
        const isEnd = c === 0x2f;
        if (isEnd) p++;
        const start = p;
        while (p < len) {
          const d = s.charCodeAt(p);
          if (isSpace(d) || d === 0x2f || d === 0x3e) break;
          p++;
        }
        events++;
        if (sink.tag(start, p, isEnd)) return true;
        state = 1;
      } else if (c === 0x21 || c === 0x3f) {
        // <!-- comment -->, or <!...> / <?...> bogus comments.
        let bodyStart = p + 1;
        let close: number;
        let closeLen: number;
        if (c === 0x21 && s.startsWith('--', p + 1)) {
          bodyStart = p + 3;
          close = s.indexOf('-->', bodyStart);
          closeLen = 3;
        } else {
          close = s.indexOf('>', bodyStart);
          closeLen = 1;
        }
        const end = close < 0 ? len : close;
        events++;
        if (sink.comment(bodyStart, end)) return true;
        p = close < 0 ? len + 1 : close + closeLen;
      }
      continue;
    }
    if (state === 1) {
      // Before attribute name: skip spaces and slashes; `>` ends the tag.
      while (p < len) {
        const c = s.charCodeAt(p);
        if (!isSpace(c) && c !== 0x2f) break;
        p++;
      }
      if (p >= len) return false;
      if (s.charCodeAt(p) === 0x3e) {
        p++;
        state = 0;
        continue;
      }
      // Attribute name: an `=` in first position belongs to the name (HTML5).
      nameStart = p;
      p++;
      while (p < len) {
        const c = s.charCodeAt(p);
        if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
        p++;
      }
      nameEnd = p;
      while (p < len && isSpace(s.charCodeAt(p))) p++;
      if (s.charCodeAt(p) !== 0x3d) {
        events++;
        if (sink.attribute(nameStart, nameEnd, -1, -1)) return true;
        continue; // back to before-attribute-name (handles `>` and the next name)
      }
      p++;
      while (p < len && isSpace(s.charCodeAt(p))) p++;
      const q = s.charCodeAt(p);
      if (q === 0x22) state = 2;
      else if (q === 0x27) state = 3;
      else if (q === 0x60)
        state = 5; // IE back-quoted value
      else state = 4;
      if (state !== 4) p++;
      valueStart = p;
      continue;
    }
    // Attribute values.
    let end: number;
    let next: number;
    if (state === 4) {
      end = p;
      while (end < len && !isSpace(s.charCodeAt(end)) && s.charCodeAt(end) !== 0x3e) end++;
      next = end;
    } else {
      const quote = state === 2 ? '"' : state === 3 ? "'" : '`';
      const close = s.indexOf(quote, p);
      end = close < 0 ? len : close;
      next = close < 0 ? len : close + 1;
    }
    events++;
    if (sink.attribute(nameStart, nameEnd, valueStart, end)) return true;
    p = next;
    nameStart = nameEnd = 0;
    if (p >= len) return false;
    state = 1;
  }
  return false;
}

/** Tokens for tests and diagnostics. */
export type HtmlToken =
  | { kind: 'tag'; name: string; isEnd: boolean }
  | { kind: 'attribute'; name: string; value: string | null }
  | { kind: 'comment'; text: string };

export function tokenizeHtml(s: string, context: HtmlContext): HtmlToken[] {
  const out: HtmlToken[] = [];
  scanHtml(s, context, {
    tag(start, end, isEnd) {
      out.push({ kind: 'tag', name: s.slice(start, end), isEnd });
      return false;
    },
    attribute(ns, ne, vs, ve) {
      out.push({ kind: 'attribute', name: s.slice(ns, ne), value: vs < 0 ? null : s.slice(vs, ve) });
      return false;
    },
    comment(start, end) {
      out.push({ kind: 'comment', text: s.slice(start, end) });
      return false;
    },
  });
  return out;
}
