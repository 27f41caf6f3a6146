/**
 * The console language: English or Simplified Chinese, chosen in the top bar, kept in localStorage,
 * first guessed from navigator.language. `t` reads the reactive locale, so texts follow a switch; counts
 * take the language's plural form (message-format.ts).
 */
import { en, type MessageKey, type Messages } from '$i18n/en.ts';
import { zhCN } from '$i18n/zh-CN.ts';
import { formatMessage, type TextParams } from './message-format.ts';

export type { MessageKey };
export type Locale = 'en' | 'zh-CN';
export const LOCALES: readonly Locale[] = ['en', 'zh-CN'];
const STORAGE_KEY = 'rampart.locale';

const CATALOGUES: Record<Locale, Messages> = { en, 'zh-CN': zhCN };

export type { TextParams };

function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored === 'en' || stored === 'zh-CN') return stored;
  } catch {
    // Storage may be unavailable (private mode); fall back to the browser language.
  }
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

export class I18n {
  locale = $state<Locale>(initialLocale());

  constructor() {
    document.documentElement.lang = this.locale;
  }

  set(locale: Locale): void {
    this.locale = locale;
    document.documentElement.lang = locale;
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // Not persisted; the choice still applies to this page.
    }
  }

  t = (key: MessageKey, params: TextParams = {}): string => {
    return formatMessage(CATALOGUES[this.locale][key], params, this.locale);
  };
}

export const i18n = new I18n();
export const t = i18n.t;

/**
 * Whether `params` give every `{name}` a text of the current language needs: an engine problem
 * whose parameters differ from what the catalogue expects is then said in the engine's own words
 * rather than with a gap.
 */
export function fills(key: MessageKey, params: TextParams): boolean {
  for (const match of CATALOGUES[i18n.locale][key].matchAll(/\{(\w+)[},]/g)) {
    if (!Object.hasOwn(params, match[1] ?? '')) return false;
  }
  return true;
}

/**
 * The NumberInput's `translateWithId` for its step buttons. Called with the locale so that the prop
 * changes, and the kit reads the texts again, when the language is switched.
 */
export function numberInputText(locale: Locale): (id: string) => string {
  void locale;
  return (id) => (id === 'increment' ? t('kit.increment') : t('kit.decrement'));
}
