import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CRS3 } from '../../../support/crs-dirs.ts';

export const CRS3_RULES = CRS3.rules;

export interface RxPattern {
  file: string;
  line: number;
  pattern: string;
}

/**
 * Every @rx (or bare) operator argument of the SecRule directives in a rule directory: line
 * continuations joined, comments skipped, the operator taken from the second double-quoted
 * argument with `\"` unescaped (the only escape Apache's config reader applies inside quotes).
 */
export function rxPatterns(dir: string): RxPattern[] {
  const out: RxPattern[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.conf'))
    .sort()) {
    const lines = readFileSync(join(dir, file), 'latin1').split('\n');
    for (let k = 0; k < lines.length; k++) {
      const first = k + 1;
      let text = lines[k] as string;
      while (text.endsWith('\\') && k + 1 < lines.length) text = text.slice(0, -1) + (lines[++k] as string);
      const m = /^\s*SecRule\s+(?:"(?:[^"\\]|\\.)*"|\S+)\s+"((?:[^"\\]|\\.)*)"/.exec(text);
      if (!m) continue;
      const operator = (m[1] as string).replace(/\\"/g, '"');
      const om = /^!?(?:@(\w+)\s?)?([\s\S]*)$/.exec(operator) as RegExpExecArray;
      if (om[1] === undefined || om[1].toLowerCase() === 'rx')
        out.push({ file, line: first, pattern: om[2] as string });
    }
  }
  return out;
}
