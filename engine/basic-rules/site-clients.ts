/**
 * A value per (site, client address), bounded: when full, a new client first clears the entries
 * `expiry` says are over at its clock's time (read once per sweep; if given), then the oldest one. Forgotten per site when the site's
 * setting changes or the site goes. Used for the plugin denials and the second opinion's history
 * and rates.
 */
export class SiteClients<V> {
  readonly #entries = new Map<string, V>();

  constructor(
    private readonly max: number,
    private readonly expiry?: { now: () => number; over: (value: V, now: number) => boolean },
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(siteId: string, ip: string): V | undefined {
    return this.#entries.size === 0 ? undefined : this.#entries.get(`${siteId} ${ip}`);
  }

  set(siteId: string, ip: string, value: V): void {
    const key = `${siteId} ${ip}`;
    const entries = this.#entries;
    if (entries.size >= this.max && !entries.has(key)) {
      const expiry = this.expiry;
      if (expiry !== undefined) {
        const now = expiry.now();
        for (const [k, v] of entries) if (expiry.over(v, now)) entries.delete(k);
      }
      if (entries.size >= this.max) entries.delete(entries.keys().next().value as string);
    }
    entries.set(key, value);
  }

  delete(siteId: string, ip: string): void {
    this.#entries.delete(`${siteId} ${ip}`);
  }

  forget(siteId: string): void {
    const prefix = `${siteId} `;
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}
