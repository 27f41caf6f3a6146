// Sorts automated clients into four kinds, in precedence order scanner > script tool > search
// engine > other crawler. Our own named lists (bot-patterns.ts) are one expression each and come
// first; then the crawler-user-agents patterns by their tags (search-engine -> search engine,
// http-library and browser-automation -> script tool unless a crawler framework, everything else
// -> other crawler), each kind a trigram index of its literal patterns plus one expression for the
// few real regular expressions. All of this runs only on a user-agent cache miss; naming a bot
// found by an expression re-tests single patterns, and only after a hit.
import { createRequire } from 'node:module';
import type { CrawlerType } from '#engine/shared';
import { CRAWLER_FRAMEWORKS, SCANNERS, SCRIPT_TOOLS, SEARCH_ENGINES, type NamedPattern } from './bot-patterns.ts';

export interface BotMatch {
  readonly type: CrawlerType;
  readonly name: string;
  /** Major version found right after the bot's name (`curl/8.4.0` -> `8`), or ''. */
  readonly versionMajor: string;
}

interface CrawlerEntry {
  pattern: string;
  tags?: string[];
}

/** One of our named lists: every entry a capturing group, so the group number names the match. */
class NamedMatcher {
  private readonly re: RegExp;
  constructor(
    private readonly entries: readonly NamedPattern[],
    readonly type: CrawlerType,
  ) {
    this.re = new RegExp(entries.map(([, src]) => `(${src})`).join('|'), 'i');
  }

  match(ua: string): BotMatch | null {
    const m = this.re.exec(ua);
    if (m === null) return null;
    for (let i = 1; i < m.length; i++) {
      if (m[i] !== undefined) {
        return {
          type: this.type,
          name: this.entries[i - 1]?.[0] ?? '',
          versionMajor: versionAfter(ua, m.index + m[0].length),
        };
      }
    }
    return null;
  }
}

/**
 * Literal patterns (nearly all of crawler-user-agents) found by a trigram index instead of a
 * regular expression: V8 tries every branch of a 1,500-way alternation at every position, which
 * costs milliseconds per user agent, whereas one pass over the string with a map probe per
 * position costs microseconds. Case-sensitive, as the list's patterns are.
 */
class LiteralMatcher {
  private readonly byTrigram = new Map<number, string[]>();

  constructor(literals: readonly string[]) {
    for (const lit of literals) {
      const key = trigram(lit, 0);
      const bucket = this.byTrigram.get(key);
      if (bucket === undefined) this.byTrigram.set(key, [lit]);
      else bucket.push(lit);
    }
  }

  /** The first literal found, scanning from the start of `ua`, and where it starts. */
  find(ua: string): { literal: string; index: number } | null {
    const last = ua.length - 3;
    for (let i = 0; i <= last; i++) {
      const bucket = this.byTrigram.get(trigram(ua, i));
      if (bucket === undefined) continue;
      for (const lit of bucket) if (ua.startsWith(lit, i)) return { literal: lit, index: i };
    }
    return null;
  }
}

/** Three UTF-16 code units as one exact number (48 bits fit a double). */
function trigram(s: string, i: number): number {
  return s.charCodeAt(i) * 4294967296 + s.charCodeAt(i + 1) * 65536 + s.charCodeAt(i + 2);
}

/** The text a pattern stands for when it is a plain literal with harmless escapes, else null. */
function literalOf(pattern: string): string | null {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!/[./\-!()&:; ]/.test(next)) return null;
      out += next;
      i++;
    } else if ('^$.*+?()[]{}|'.includes(c)) return null;
    else out += c;
  }
  return out.length >= 3 && new RegExp(pattern).test(out) ? out : null;
}

/** crawler-user-agents patterns of one kind: a literal index plus one expression for the rest. */
class PatternListMatcher {
  private readonly literals: LiteralMatcher;
  private readonly any: RegExp | null;
  private readonly each: RegExp[];
  constructor(
    patterns: readonly string[],
    readonly type: CrawlerType,
  ) {
    const literals: string[] = [];
    const complex: string[] = [];
    for (const p of patterns) {
      const lit = literalOf(p);
      if (lit !== null) literals.push(lit);
      else complex.push(p);
    }
    this.literals = new LiteralMatcher(literals);
    this.each = complex.map((p) => new RegExp(p));
    this.any = complex.length === 0 ? null : new RegExp(complex.map((p) => `(?:${p})`).join('|'));
  }

  match(ua: string): BotMatch | null {
    const hit = this.literals.find(ua);
    if (hit !== null) {
      const end = hit.index + hit.literal.length;
      return { type: this.type, name: botNameFrom(hit.literal), versionMajor: versionAfter(ua, end) };
    }
    if (this.any === null || !this.any.test(ua)) return null;
    for (const re of this.each) {
      const m = re.exec(ua);
      if (m !== null) {
        return { type: this.type, name: botNameFrom(m[0]), versionMajor: versionAfter(ua, m.index + m[0].length) };
      }
    }
    return null;
  }
}

/** The matched text, trimmed of separators, as a display name. */
function botNameFrom(matched: string): string {
  const name = matched.replace(/^[\s/;(+:-]+|[\s/;)+:-]+$/g, '');
  return name.length > 64 ? name.slice(0, 64) : name;
}

/** Digits of `/1.2` (or ` 1.2`) right at `pos`, or right at `pos` after a name ending in `/`. */
function versionAfter(ua: string, pos: number): string {
  let i = pos;
  const c = ua.charCodeAt(i);
  if (c === 47 /* / */ || c === 32 /* space */) i++;
  else if (ua.charCodeAt(i - 1) !== 47) return '';
  const start = i;
  while (i < ua.length && i - start < 8) {
    const d = ua.charCodeAt(i);
    if (d < 48 || d > 57) break;
    i++;
  }
  return i > start ? ua.slice(start, i) : '';
}

export class BotClassifier {
  private readonly matchers: readonly { match(ua: string): BotMatch | null }[];

  constructor(crawlers: readonly CrawlerEntry[]) {
    const script: string[] = [];
    const search: string[] = [];
    const other: string[] = [];
    for (const entry of crawlers) {
      if (!isUsable(entry.pattern)) continue;
      const tags = entry.tags ?? [];
      if (tags.includes('search-engine')) search.push(entry.pattern);
      else if (
        (tags.includes('http-library') || tags.includes('browser-automation')) &&
        !CRAWLER_FRAMEWORKS.test(entry.pattern)
      )
        script.push(entry.pattern);
      else other.push(entry.pattern);
    }
    this.matchers = [
      new NamedMatcher(SCANNERS, 'scanner'),
      new NamedMatcher(SCRIPT_TOOLS, 'script_tool'),
      new PatternListMatcher(script, 'script_tool'),
      new NamedMatcher(SEARCH_ENGINES, 'search_engine'),
      new PatternListMatcher(search, 'search_engine'),
      new PatternListMatcher(other, 'other_crawler'),
    ];
  }

  /** The first kind that matches, in precedence order, or null for a (claimed) browser. */
  classify(ua: string): BotMatch | null {
    for (const m of this.matchers) {
      const hit = m.match(ua);
      if (hit !== null) return hit;
    }
    return null;
  }
}

/** A pattern must compile on its own and must not refer to groups (joined, the numbers shift). */
function isUsable(pattern: string): boolean {
  if (/\\[1-9]|\\k</.test(pattern)) return false;
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** The crawler-user-agents list as shipped in its package (MIT). */
export function loadCrawlerList(): readonly CrawlerEntry[] {
  const require = createRequire(import.meta.url);
  return require('crawler-user-agents') as CrawlerEntry[];
}
