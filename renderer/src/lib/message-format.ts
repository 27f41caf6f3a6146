/**
 * Fills a catalogue text with its parameters. `{name}` is replaced by the parameter; a plural block
 * `{count, plural, one {# site} other {# sites}}` picks the branch of the language's plural rule for
 * the number (`=0` and other exact branches first), with `#` standing for the number. Chinese has one
 * form, so its texts need no block. Pure: no runes, so it runs in unit tests as it does in the page.
 */
export type TextParams = Readonly<Record<string, string | number | boolean>>;

const rulesCache = new Map<string, Intl.PluralRules>();

function pluralRules(locale: string): Intl.PluralRules {
  let rules = rulesCache.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    rulesCache.set(locale, rules);
  }
  return rules;
}

/** The index just after the `}` closing the `{` at `open`, or -1 when the braces do not balance. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The branches of a plural block's body (`one {…} other {…}`), by selector. */
function branches(body: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < body.length) {
    const selector = /^\s*(=?\w+)\s*\{/.exec(body.slice(i));
    if (!selector) break;
    const open = i + selector[0].length - 1;
    const end = closing(body, open);
    if (end < 0) break;
    out.set(selector[1]!, body.slice(open + 1, end - 1));
    i = end;
  }
  return out;
}

export function formatMessage(text: string, params: TextParams, locale: string): string {
  let out = '';
  let i = 0;
  const plural = /\{(\w+),\s*plural,/g;
  for (let match = plural.exec(text); match; match = plural.exec(text)) {
    const end = closing(text, match.index);
    if (end < 0) break;
    const name = match[1]!;
    const value = Number(params[name]);
    const forms = branches(text.slice(match.index + match[0].length, end - 1));
    const chosen =
      forms.get(`=${value}`) ??
      forms.get(Number.isFinite(value) ? pluralRules(locale).select(value) : 'other') ??
      forms.get('other') ??
      '';
    out +=
      text.slice(i, match.index) +
      chosen.replace(/#/g, Number.isFinite(value) ? value.toLocaleString(locale) : String(params[name] ?? ''));
    i = end;
    plural.lastIndex = end;
  }
  out += text.slice(i);
  return out.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
