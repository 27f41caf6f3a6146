import type { Page } from 'playwright-core';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';

/**
 * Finds English catalogue texts on a page shown in Chinese: every visible text node and every
 * accessible name (aria-label, title, alt, placeholder, and the names of the accessibility tree).
 */

/** Texts a Chinese page may show in Latin letters: product and standard names. */
const ALLOWED = new Set(['Rampart', 'OWASP', 'CRS', 'English', 'HTTP', 'HTTPS', 'CNAME', 'IP', 'URL', 'WAF']);

interface Matcher {
  key: string;
  test: (text: string) => boolean;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The English forms of a message: a plural message gives each of its branches. */
function forms(value: string): string[] {
  const plural = /\{(\w+), plural,((?:\s*\w+ \{[^{}]*(?:\{\w+\}[^{}]*)*\})+)\s*\}/.exec(value);
  if (!plural) return [value];
  const out: string[] = [];
  for (const branch of plural[2]!.matchAll(/(\w+) \{((?:[^{}]|\{\w+\})*)\}/g)) {
    const text = branch[2]!.replace(/#/g, `{${plural[1]!}}`);
    out.push(...forms(value.slice(0, plural.index) + text + value.slice(plural.index + plural[0].length)));
  }
  return out;
}

/** Letters outside the placeholders: a message of placeholders and punctuation says nothing English. */
function literalLetters(value: string): number {
  return (value.replace(/\{\w+\}/g, '').match(/[A-Za-z]/g) ?? []).length;
}

function buildMatchers(): Matcher[] {
  const matchers: Matcher[] = [];
  for (const [key, value] of Object.entries(en)) {
    const zh = (zhCN as Record<string, string>)[key];
    if (zh === value) continue;
    for (const form of forms(value)) {
      if (literalLetters(form) < 3 || ALLOWED.has(form)) continue;
      const normal = form.replace(/\s+/g, ' ').trim();
      if (!/\{\w+\}/.test(normal)) {
        matchers.push({ key, test: (text) => text === normal });
        continue;
      }
      const pattern = new RegExp(
        `^${normal
          .split(/\{\w+\}/)
          .map(escape)
          .join('.+?')}$`,
        's',
      );
      matchers.push({ key, test: (text) => pattern.test(text) });
    }
  }
  return matchers;
}

/**
 * The English defaults of the component kit (Carbon Components Svelte): accessible names and titles
 * that a page shows unless it passes its own text.
 */
const KIT_DEFAULTS = [
  'Tile checkmark',
  'Increment number',
  'Decrement number',
  'Numeric input field with increment and decrement buttons',
  'Breadcrumb',
  'loading',
  'Loading',
  'active',
  'finished',
  'error',
  'Close notification',
  'Close icon',
  'Close the modal',
  'Close',
  'Open and close list of options',
  'Copy to clipboard',
  'Copied!',
  'Failed to copy',
  'Copy code',
  'Code snippet',
  'Show more',
  'Show less',
  'Clear search input',
  'Search...',
  'Open menu',
  'Close menu',
  'Clear filter',
  'Off',
  'On',
  'Add file',
  'Show password',
  'Hide password',
  'Show information',
  'Open list of options',
];

const MATCHERS = [
  ...buildMatchers(),
  ...KIT_DEFAULTS.map((text) => ({ key: `component kit default`, test: (seen: string) => seen === text })),
];

export interface Finding {
  where: string;
  text: string;
  key: string;
}

/**
 * Visible text nodes and accessible-name attributes, read in the page. Written as page source: the
 * tests are compiled without the DOM library.
 */
const PAGE_TEXTS = `(() => {
  const out = [];
  const norm = (s) => s.replace(/\\s+/g, ' ').trim();
  const visible = (el) =>
    el.checkVisibility({ opacityProperty: false, visibilityProperty: true }) && !el.closest('[aria-hidden="true"]');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName) || !visible(parent)) continue;
    const text = norm(node.textContent ?? '');
    if (text) out.push({ where: 'text in <' + parent.tagName.toLowerCase() + '>', text });
  }
  for (const el of document.body.querySelectorAll('*')) {
    if (!visible(el)) continue;
    for (const name of ['aria-label', 'title', 'alt', 'placeholder', 'aria-description', 'aria-roledescription']) {
      const value = el.getAttribute(name);
      if (value && norm(value)) out.push({ where: name + ' of <' + el.tagName.toLowerCase() + '>', text: norm(value) });
    }
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type) && el.value)
      out.push({ where: 'value of <input>', text: norm(el.value) });
  }
  return out;
})()`;

async function pageTexts(page: Page): Promise<{ where: string; text: string }[]> {
  return page.evaluate<{ where: string; text: string }[]>(PAGE_TEXTS);
}

/** Names of the accessibility tree, as playwright computes them (labels, labelledby, contents). */
async function accessibleNames(page: Page): Promise<string[]> {
  const snapshot = await page.locator('body').ariaSnapshot();
  const names: string[] = [];
  for (const match of snapshot.matchAll(/^\s*- [\w-]+ "((?:[^"\\]|\\.)*)"/gm)) {
    names.push(match[1]!.replace(/\\"/g, '"').replace(/\s+/g, ' ').trim());
  }
  for (const match of snapshot.matchAll(/^\s*- (?:text|[\w-]+): (.+)$/gm)) {
    names.push(match[1]!.replace(/^"|"$/g, '').replace(/\s+/g, ' ').trim());
  }
  return names;
}

/** English catalogue texts found on the page now; `seen` collects every text for a report. */
export async function englishOn(page: Page, label: string): Promise<Finding[]> {
  const found: Finding[] = [];
  const entries = [
    ...(await pageTexts(page)),
    ...(await accessibleNames(page)).map((text) => ({ where: 'accessible name', text })),
  ];
  const done = new Set<string>();
  for (const { where, text } of entries) {
    if (done.has(text)) continue;
    done.add(text);
    const matcher = MATCHERS.find((m) => m.test(text));
    if (matcher) found.push({ where: `${label}: ${where}`, text, key: matcher.key });
  }
  return found;
}

/**
 * Latin-letter texts of two or more words that the catalogue does not know: not a failure (site
 * names and addresses are data), but printed so that a kit default left in English shows up.
 */
export async function latinWordsOn(page: Page): Promise<string[]> {
  const texts = [...(await pageTexts(page)).map((e) => e.text), ...(await accessibleNames(page))];
  return [...new Set(texts)].filter(
    (text) => /\b[A-Za-z]{2,} [A-Za-z]{2,}\b/.test(text) && !/@|\.example\.|https?:/.test(text),
  );
}
