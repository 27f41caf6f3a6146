/**
 * multipart/form-data, with ModSecurity's flags: every anomaly sets one MULTIPART_* flag and
 * MULTIPART_STRICT_ERROR is their OR; a body that cannot be parsed at all (no boundary, missing
 * final boundary, part without Content-Disposition) is a body error (REQBODY_ERROR).
 */

export interface MultipartFile {
  name: string;
  filename: string;
  content: string;
}

export interface MultipartFlags {
  boundaryQuoted: boolean;
  boundaryWhitespace: boolean;
  dataBefore: boolean;
  dataAfter: boolean;
  headerFolding: boolean;
  lfLine: boolean;
  crlfLfLines: boolean;
  missingSemicolon: boolean;
  invalidQuoting: boolean;
  invalidPart: boolean;
  invalidHeaderFolding: boolean;
  fileLimitExceeded: boolean;
  unmatchedBoundary: boolean;
}

export interface MultipartResult {
  args: [string, string][];
  files: MultipartFile[];
  /** Per part name, each header line as sent (`Content-Type: text/plain`). */
  partHeaders: [string, string][];
  flags: MultipartFlags;
  error?: string;
}

export function emptyFlags(): MultipartFlags {
  return {
    boundaryQuoted: false,
    boundaryWhitespace: false,
    dataBefore: false,
    dataAfter: false,
    headerFolding: false,
    lfLine: false,
    crlfLfLines: false,
    missingSemicolon: false,
    invalidQuoting: false,
    invalidPart: false,
    invalidHeaderFolding: false,
    fileLimitExceeded: false,
    unmatchedBoundary: false,
  };
}

export function strictError(f: MultipartFlags): boolean {
  return Object.values(f).some(Boolean);
}

/** Reads the boundary from a Content-Type value, setting the flags ModSecurity sets. */
export function parseBoundary(contentType: string, flags: MultipartFlags): string | undefined {
  const lower = contentType.toLowerCase();
  const at = lower.indexOf('boundary');
  if (at < 0) return undefined;
  const before = contentType.slice(0, at).trimEnd();
  if (!before.endsWith(';') && !before.endsWith(',')) flags.missingSemicolon = true;
  let rest = contentType.slice(at + 8);
  const eq = rest.indexOf('=');
  if (eq < 0) return undefined;
  if (rest.slice(0, eq).trim() !== '' || /[ \t]/.test(rest.slice(0, eq + 1))) flags.boundaryWhitespace = true;
  rest = rest.slice(eq + 1);
  if (/^[ \t]/.test(rest)) flags.boundaryWhitespace = true;
  rest = rest.trimStart();
  let boundary: string;
  if (rest.startsWith('"')) {
    flags.boundaryQuoted = true;
    const end = rest.indexOf('"', 1);
    if (end < 0) return undefined;
    boundary = rest.slice(1, end);
  } else {
    const semi = rest.search(/[;,]/);
    boundary = semi < 0 ? rest : rest.slice(0, semi);
    if (/[ \t]$/.test(boundary)) flags.boundaryWhitespace = true;
    boundary = boundary.trimEnd();
  }
  if (boundary.length === 0 || boundary.length > 70 || /["\r\n]/.test(boundary)) return undefined;
  return boundary;
}

interface Disposition {
  name?: string;
  filename?: string;
  error?: string;
}

/** The body error of a multipart body without its closing boundary (also: a body cut short). */
export const FINAL_BOUNDARY_MISSING = 'Multipart: Final boundary missing.';

/** Parses `form-data; name="a"; filename="b"`; quoting problems are flags, not errors. */
function parseDisposition(value: string, flags: MultipartFlags): Disposition {
  const result: Disposition = {};
  let s = value.trimStart();
  if (!/^form-data/i.test(s)) return { error: 'Multipart: Content-Disposition is not form-data' };
  s = s.slice(9);
  let guard = 0;
  while (s.length > 0 && guard++ < 100) {
    s = s.trimStart();
    if (s.startsWith(';')) s = s.slice(1).trimStart();
    else {
      flags.invalidPart = true;
      return { error: 'Multipart: Invalid Content-Disposition header (missing ;)' };
    }
    if (s.length === 0) break;
    const eq = s.indexOf('=');
    if (eq < 0) {
      flags.invalidPart = true;
      return { error: 'Multipart: Invalid Content-Disposition header (parameter without value)' };
    }
    const pname = s.slice(0, eq).trim().toLowerCase();
    s = s.slice(eq + 1).trimStart();
    let pvalue: string;
    if (s.startsWith('"')) {
      let j = 1;
      let v = '';
      for (; j < s.length; j++) {
        const c = s[j];
        if (c === '\\' && (s[j + 1] === '"' || s[j + 1] === '\\')) {
          v += s[j + 1];
          j++;
        } else if (c === '"') break;
        else v += c;
      }
      if (j >= s.length) {
        flags.invalidQuoting = true;
        return { error: 'Multipart: Invalid Content-Disposition header (unterminated quote)' };
      }
      pvalue = v;
      s = s.slice(j + 1);
    } else {
      const semi = s.indexOf(';');
      pvalue = (semi < 0 ? s : s.slice(0, semi)).trim();
      s = semi < 0 ? '' : s.slice(semi);
      if (/['"]/.test(pvalue)) flags.invalidQuoting = true;
    }
    if (pname === 'name') {
      if (result.name !== undefined) flags.invalidPart = true;
      result.name = pvalue;
    } else if (pname === 'filename' || pname === 'filename*') {
      if (result.filename !== undefined && pname === 'filename') flags.invalidPart = true;
      result.filename = pvalue;
    } else {
      flags.invalidPart = true;
    }
  }
  return result;
}

export function parseMultipart(body: string, contentType: string, maxParts = 1000): MultipartResult {
  const flags = emptyFlags();
  const args: [string, string][] = [];
  const files: MultipartFile[] = [];
  const partHeaders: [string, string][] = [];
  const result = (error?: string): MultipartResult =>
    error === undefined ? { args, files, partHeaders, flags } : { args, files, partHeaders, flags, error };

  const boundary = parseBoundary(contentType, flags);
  if (boundary === undefined) return result('Multipart: Boundary not found in C-T.');
  const delim = '--' + boundary;

  // Split into lines, remembering the terminator so part content can be rebuilt exactly.
  let crlf = 0;
  let lf = 0;
  let pos = 0;
  let state: 'preamble' | 'headers' | 'content' | 'done' = 'preamble';
  let headerLines: string[] = [];
  let content = '';
  let contentStarted = false;
  let pendingTerminator = '';
  let partCount = 0;
  let finalSeen = false;

  const finishPart = (): string | undefined => {
    if (state !== 'content') return undefined;
    let disposition: Disposition | undefined;
    const hdrs: string[] = [];
    for (const line of headerLines) {
      hdrs.push(line);
      const colon = line.indexOf(':');
      if (colon <= 0) {
        flags.invalidPart = true;
        return 'Multipart: Invalid part header (colon missing)';
      }
      const hname = line.slice(0, colon).trim().toLowerCase();
      if (hname === 'content-disposition') {
        if (disposition !== undefined) return 'Multipart: Duplicate Content-Disposition header';
        disposition = parseDisposition(line.slice(colon + 1), flags);
      }
    }
    if (disposition === undefined) return 'Multipart: Part missing Content-Disposition header';
    if (disposition.error !== undefined) return disposition.error;
    if (disposition.name === undefined) return 'Multipart: Content-Disposition header missing name field';
    for (const h of hdrs) partHeaders.push([disposition.name, h]);
    if (disposition.filename !== undefined) {
      files.push({ name: disposition.name, filename: disposition.filename, content });
    } else {
      args.push([disposition.name, content]);
    }
    return undefined;
  };

  while (pos < body.length && state !== 'done') {
    let nl = body.indexOf('\n', pos);
    const hasNl = nl >= 0;
    if (!hasNl) nl = body.length;
    let line = body.slice(pos, nl);
    let terminator = hasNl ? '\n' : '';
    if (line.endsWith('\r')) {
      line = line.slice(0, -1);
      terminator = '\r\n';
    }
    pos = hasNl ? nl + 1 : nl;

    if (line.startsWith(delim)) {
      const rest = line.slice(delim.length);
      const isFinal = rest.startsWith('--');
      const tail = isFinal ? rest.slice(2) : rest;
      if (tail.trim() === '') {
        if (terminator === '\r\n') crlf++;
        else if (terminator === '\n') lf++;
        const err = finishPart();
        if (err !== undefined) return result(err);
        if (isFinal) {
          finalSeen = true;
          state = 'done';
        } else {
          partCount++;
          if (partCount > maxParts) {
            flags.fileLimitExceeded = true;
            return result('Multipart: too many parts');
          }
          state = 'headers';
          headerLines = [];
          content = '';
          contentStarted = false;
          pendingTerminator = '';
        }
        continue;
      }
      if (state === 'content') flags.unmatchedBoundary = true;
    } else if (
      state === 'content' &&
      line.startsWith('--') &&
      line.length > 2 &&
      boundary.startsWith(line.slice(2, 2 + Math.min(8, line.length - 2))) &&
      line.slice(2) !== boundary
    ) {
      flags.unmatchedBoundary = true;
    }

    if (state === 'preamble') {
      if (line.trim() !== '') flags.dataBefore = true;
      continue;
    }
    if (state === 'headers') {
      if (terminator === '\r\n') crlf++;
      else if (terminator === '\n') lf++;
      if (line === '') {
        state = 'content';
        continue;
      }
      if (line.startsWith(' ') || line.startsWith('\t')) {
        if (headerLines.length === 0) {
          flags.invalidHeaderFolding = true;
          return result('Multipart: Invalid header folding');
        }
        flags.headerFolding = true;
        headerLines[headerLines.length - 1] += ' ' + line.trim();
        continue;
      }
      if (headerLines.length > 100) return result('Multipart: too many part headers');
      headerLines.push(line);
      continue;
    }
    // Content: the terminator before the next boundary line belongs to the boundary.
    if (contentStarted) content += pendingTerminator;
    content += line;
    contentStarted = true;
    pendingTerminator = terminator;
  }

  if (crlf > 0 && lf > 0) flags.crlfLfLines = true;
  if (lf > 0 && crlf === 0) flags.lfLine = true;
  if (!finalSeen) return result(FINAL_BOUNDARY_MISSING);
  if (body.slice(pos).trim() !== '') flags.dataAfter = true;
  return result();
}
