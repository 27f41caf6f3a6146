/**
 * Light and dark theme: the person's choice (system, light or dark), kept in localStorage; `system`
 * follows prefers-color-scheme live. Carbon g10 for light, g100 for dark, set as the `theme`
 * attribute that Carbon's all.css keys its tokens on.
 */
export type ThemeName = 'g10' | 'g100';
export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
const STORAGE_KEY = 'rampart.theme';

function storedChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored === 'light' || stored === 'dark' || stored === 'system') return stored;
  } catch {
    // Storage may be unavailable (private mode): follow the system.
  }
  return 'system';
}

export class Theme {
  current = $state<ThemeName>('g10');
  choice = $state<ThemeChoice>(storedChoice());
  readonly #query = window.matchMedia('(prefers-color-scheme: dark)');

  constructor() {
    this.#apply();
    this.#query.addEventListener('change', () => this.#apply());
  }

  get dark(): boolean {
    return this.current === 'g100';
  }

  choose(choice: ThemeChoice): void {
    this.choice = choice;
    try {
      localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // Not persisted; the choice still applies to this page.
    }
    this.#apply();
  }

  #apply(): void {
    const dark = this.choice === 'dark' || (this.choice === 'system' && this.#query.matches);
    this.current = dark ? 'g100' : 'g10';
    document.documentElement.setAttribute('theme', this.current);
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
  }
}
