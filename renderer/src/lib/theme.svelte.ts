/**
 * Light and dark theme following the system preference (prefers-color-scheme), live: Carbon g10 for
 * light, g100 for dark, set as the `theme` attribute that Carbon's all.css keys its tokens on.
 */
export type ThemeName = 'g10' | 'g100';

export class Theme {
  current = $state<ThemeName>('g10');
  readonly #query = window.matchMedia('(prefers-color-scheme: dark)');

  constructor() {
    this.#apply(this.#query.matches);
    this.#query.addEventListener('change', (event) => this.#apply(event.matches));
  }

  get dark(): boolean {
    return this.current === 'g100';
  }

  #apply(dark: boolean): void {
    this.current = dark ? 'g100' : 'g10';
    document.documentElement.setAttribute('theme', this.current);
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
  }
}
