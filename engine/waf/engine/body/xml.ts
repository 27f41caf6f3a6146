/**
 * A small non-validating XML parser for request bodies. It checks well-formedness the way libxml2
 * would reject a document (unbalanced or mismatched tags, more than one root, garbage outside the
 * root, bad attributes) and collects what CRS reads: `XML:/*` (the text content of the document,
 * like xmlNodeGetContent on the root) and `XML://@*` (every attribute value). DOCTYPE blocks
 * (including an internal subset) are skipped, never expanded: no entity resolution, no network.
 */

export interface XmlResult {
  /** Concatenated text content of the root element (character data and CDATA). */
  text: string;
  attributes: string[];
  error?: string;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME = /[A-Za-z_:\u0080-\u00ff][-A-Za-z0-9_:.\u0080-\u00ff]*/y;
const MAX_DEPTH = 1024;

function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g, (whole, ent: string) => {
    if (ent.startsWith('#x') || ent.startsWith('#')) {
      const code = ent.startsWith('#x') ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10);
      if (!Number.isFinite(code) || code > 0x10ffff) return whole;
      return Buffer.from(String.fromCodePoint(code), 'utf8').toString('latin1');
    }
    return PREDEFINED[ent] ?? '';
  });
}

export function parseXml(body: string): XmlResult {
  const attributes: string[] = [];
  let text = '';
  const stack: string[] = [];
  let rootSeen = false;
  let i = 0;
  const n = body.length;
  const fail = (msg: string): XmlResult => ({ text, attributes, error: `XML parse error at offset ${i}: ${msg}` });

  while (i < n) {
    const lt = body.indexOf('<', i);
    const chunkEnd = lt < 0 ? n : lt;
    if (chunkEnd > i) {
      const chunk = body.slice(i, chunkEnd);
      if (stack.length > 0) text += decodeEntities(chunk);
      else if (/[^ \t\r\n]/.test(chunk)) {
        i = chunkEnd;
        return fail(rootSeen ? 'extra content at the end of the document' : 'start tag expected');
      }
    }
    if (lt < 0) break;
    i = lt;
    if (body.startsWith('<?', i)) {
      const end = body.indexOf('?>', i + 2);
      if (end < 0) return fail('unterminated processing instruction');
      i = end + 2;
      continue;
    }
    if (body.startsWith('<!--', i)) {
      const end = body.indexOf('-->', i + 4);
      if (end < 0) return fail('unterminated comment');
      i = end + 3;
      continue;
    }
    if (body.startsWith('<![CDATA[', i)) {
      if (stack.length === 0) return fail('CDATA outside the root element');
      const end = body.indexOf(']]>', i + 9);
      if (end < 0) return fail('unterminated CDATA section');
      text += body.slice(i + 9, end);
      i = end + 3;
      continue;
    }
    if (body.startsWith('<!DOCTYPE', i) || body.startsWith('<!doctype', i)) {
      if (rootSeen) return fail('DOCTYPE after the root element');
      let j = i + 9;
      let depth = 0;
      let quote = '';
      for (; j < n; j++) {
        const c = body[j];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (j >= n) return fail('unterminated DOCTYPE');
      i = j + 1;
      continue;
    }
    if (body[i + 1] === '/') {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(body);
      if (!m) return fail('bad end tag');
      let j = i + 2 + m[0].length;
      while (j < n && /[ \t\r\n]/.test(body[j] ?? '')) j++;
      if (body[j] !== '>') return fail('bad end tag');
      if (stack.pop() !== m[0]) return fail(`mismatched end tag ${m[0]}`);
      i = j + 1;
      continue;
    }
    NAME.lastIndex = i + 1;
    const m = NAME.exec(body);
    if (!m) return fail('bad start tag');
    if (stack.length === 0 && rootSeen) return fail('extra content at the end of the document');
    rootSeen = true;
    let j = i + 1 + m[0].length;
    let selfClosing = false;
    for (;;) {
      const ws = j;
      while (j < n && /[ \t\r\n]/.test(body[j] ?? '')) j++;
      if (j >= n) return fail('unterminated start tag');
      if (body[j] === '>') {
        j++;
        break;
      }
      if (body.startsWith('/>', j)) {
        j += 2;
        selfClosing = true;
        break;
      }
      if (ws === j) return fail('attributes must be separated by whitespace');
      NAME.lastIndex = j;
      const a = NAME.exec(body);
      if (!a) return fail('bad attribute name');
      j += a[0].length;
      while (j < n && /[ \t\r\n]/.test(body[j] ?? '')) j++;
      if (body[j] !== '=') return fail('attribute without value');
      j++;
      while (j < n && /[ \t\r\n]/.test(body[j] ?? '')) j++;
      const q = body[j];
      if (q !== '"' && q !== "'") return fail('unquoted attribute value');
      const end = body.indexOf(q, j + 1);
      if (end < 0) return fail('unterminated attribute value');
      const raw = body.slice(j + 1, end);
      if (raw.indexOf('<') >= 0) return fail("'<' in attribute value");
      attributes.push(decodeEntities(raw));
      j = end + 1;
    }
    if (!selfClosing) {
      if (stack.length >= MAX_DEPTH) return fail('nesting too deep');
      stack.push(m[0]);
    }
    i = j;
  }
  if (stack.length > 0) return fail('premature end of data');
  if (!rootSeen) return fail('document is empty');
  return { text, attributes };
}
