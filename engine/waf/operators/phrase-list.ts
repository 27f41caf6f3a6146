/**
 * Parses a @pm argument as ModSecurity does (parse_pm_content): leading blanks dropped, one pair
 * of surrounding double quotes removed, `|41 42|` hex bytes and the escapes `\:` `\;` `\\` `\"`
 * decoded, then split on whitespace into phrases.
 */
export function parsePhraseList(argument: string): string[] {
  let text = argument.replace(/^[ \t]+/, '');
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1);
  let out = '';
  let inHex = false;
  let hex = '';
  let escaped = false;
  for (const ch of text) {
    if (ch === '|') {
      inHex = !inHex;
      hex = '';
    } else if (!escaped && ch === '\\') {
      escaped = true;
    } else if (inHex) {
      if (/^[0-9a-fA-F]$/.test(ch)) {
        hex += ch;
        if (hex.length === 2) {
          out += String.fromCharCode(parseInt(hex, 16));
          hex = '';
        }
      }
    } else if (escaped) {
      if (ch !== ':' && ch !== ';' && ch !== '\\' && ch !== '"') {
        throw new Error(`@pm: unsupported escape sequence "\\${ch}" (only \\: \\; \\\\ \\" are allowed)`);
      }
      out += ch;
      escaped = false;
    } else {
      out += ch;
    }
  }
  return out.split(/[ \t\n\v\f\r]+/).filter((p) => p.length > 0);
}

/**
 * Data-file lines as @pmFromFile / @ipMatchFromFile read them: a trailing CR dropped, empty and
 * blank lines and lines whose first non-blank byte is `#` skipped; other lines kept verbatim.
 */
export function dataFileEntries(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    out.push(line);
  }
  return out;
}

/** The engine binds the rule's position into its CompileEnv; operators cannot know it. */
export const NO_POSITION = { file: '', line: 0 } as const;
