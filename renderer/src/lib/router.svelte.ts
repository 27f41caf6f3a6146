/**
 * A small router on the History API: the path and the query string are the state, so every page
 * and its filters can be bookmarked and shared. Same-origin links are followed without a reload.
 */
import { SvelteURL, SvelteURLSearchParams } from 'svelte/reactivity';

/** Asked before the path changes; false keeps the person on the page (a form with unsaved changes). */
export type LeaveGuard = (to: string) => boolean;

export class Router {
  path = $state(window.location.pathname);
  search = $state(window.location.search);
  #guard: LeaveGuard | null = null;

  constructor() {
    window.addEventListener('popstate', () => this.#onPopState());
    document.addEventListener('click', (event) => this.#onClick(event));
  }

  /** Installs a leave guard for the current page; the returned function removes it. */
  guard(guard: LeaveGuard): () => void {
    this.#guard = guard;
    return () => {
      if (this.#guard === guard) this.#guard = null;
    };
  }

  get query(): URLSearchParams {
    return new SvelteURLSearchParams(this.search);
  }

  /** `force` skips the leave guard (after the person confirmed leaving, or when the session ended). */
  navigate(to: string, { replace = false, force = false } = {}): void {
    const url = new SvelteURL(to, window.location.origin);
    if (url.pathname + url.search === window.location.pathname + window.location.search) return;
    if (!force && url.pathname !== this.path && this.#guard && !this.#guard(url.pathname + url.search)) return;
    if (replace) window.history.replaceState(null, '', url.pathname + url.search);
    else window.history.pushState(null, '', url.pathname + url.search);
    this.#sync();
    window.scrollTo(0, 0);
  }

  /** Replaces the query string of the current page (filters), keeping the path. */
  setQuery(values: Record<string, string | undefined>): void {
    const q = this.query;
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined || v === '') q.delete(k);
      else q.set(k, v);
    }
    const qs = q.toString();
    this.navigate(`${this.path}${qs ? `?${qs}` : ''}`, { replace: true });
  }

  #onPopState(): void {
    const to = window.location.pathname + window.location.search;
    if (window.location.pathname !== this.path && this.#guard && !this.#guard(to)) {
      // Back or forward was pressed: put the page's own address back until the person decides.
      window.history.pushState(null, '', this.path + this.search);
      return;
    }
    this.#sync();
  }

  #sync(): void {
    this.path = window.location.pathname;
    this.search = window.location.search;
  }

  #onClick(event: MouseEvent): void {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const href = anchor.getAttribute('href');
    if (!href || !href.startsWith('/') || href.startsWith('//') || href.startsWith('/api/')) return;
    event.preventDefault();
    this.navigate(href);
  }
}
