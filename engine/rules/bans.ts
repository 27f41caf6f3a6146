import { RampartError, SECOND, type Clock, type LogKeyTarget } from '#engine/shared';

/** Spec 8: a threat-store entry made by a block of an IP or a device lasts 300 s. */
export const THREAT_STORE_SECONDS = 300;

/** Why a ban exists: a rule that fired (with the event and the record), or an administrator. */
export type BanOrigin =
  | {
      kind: 'rule';
      ruleId: string;
      ruleName: string;
      eventId: string;
      eventName: string;
      /** The log and log_id of the record that fired the event. */
      log: string;
      logId: string;
    }
  | { kind: 'manual'; accountId: string | null; accountName?: string; reason: string };

/** A block of one object (an IP, a device, a user, a custom key) on one site until a time. */
export interface Ban {
  id: string;
  siteId: string;
  object: LogKeyTarget;
  value: string;
  createdAt: number;
  until: number;
  origin: BanOrigin;
}

/** A threat-store entry: an IP or a device any site that queries the store denies until a time. */
export interface ThreatEntry {
  object: 'ip' | 'device';
  value: string;
  until: number;
  /** The ban that made it. */
  banId: string;
}

/** What is persisted: the active bans and threat-store entries (expired ones are left out). */
export interface BansSnapshot {
  version: 1;
  bans: Ban[];
  threats: ThreatEntry[];
}

const banKey = (siteId: string, object: LogKeyTarget, value: string): string =>
  `${siteId}\u0000${object}\u0000${value}`;
const threatKey = (object: 'ip' | 'device', value: string): string => `${object}\u0000${value}`;

export interface BanQuery {
  siteId?: string;
  object?: LogKeyTarget;
  /** Part of the value (an address, a device id). */
  value?: string;
  limit: number;
  /** The id of the last ban of the previous page. */
  cursor?: string;
}

/**
 * Bans and the threat store, in memory: two maps keyed by a compact string, so the verdict's check
 * is O(1) whatever the number of entries. An entry counts only while `until > now`, so expiry is
 * exact to the millisecond; `sweep` drops expired entries to bound memory. Persistence is the
 * owner's (`snapshot` / `load` after every change, debounced).
 */
export class BanStore {
  readonly #bans = new Map<string, Ban>();
  readonly #byId = new Map<string, Ban>();
  readonly #threats = new Map<string, ThreatEntry>();
  readonly #clock: Clock;
  readonly #changed: () => void;
  #seq = 0;

  constructor(options: { clock: Clock; changed?: () => void }) {
    this.#clock = options.clock;
    this.#changed = options.changed ?? (() => undefined);
  }

  /** Bans `value` on `siteId` until now + duration; an existing ban of it is extended, never shortened. */
  ban(input: {
    siteId: string;
    object: LogKeyTarget;
    value: string;
    durationSeconds: number;
    origin: BanOrigin;
    /** Also put IPs and devices in the threat store for 300 s (a rule's block; not a manual ban). */
    threatStore: boolean;
  }): Ban {
    const now = this.#clock.now();
    const until = now + input.durationSeconds * SECOND;
    const key = banKey(input.siteId, input.object, input.value);
    const existing = this.#bans.get(key);
    let ban: Ban;
    if (existing !== undefined && existing.until > now) {
      ban = existing;
      if (until > existing.until) {
        existing.until = until;
        existing.origin = input.origin;
      }
    } else {
      if (existing !== undefined) this.#byId.delete(existing.id);
      ban = {
        id: `ban_${now.toString(36)}_${(this.#seq++).toString(36)}`,
        siteId: input.siteId,
        object: input.object,
        value: input.value,
        createdAt: now,
        until,
        origin: input.origin,
      };
      this.#bans.set(key, ban);
      this.#byId.set(ban.id, ban);
    }
    if (input.threatStore && (input.object === 'ip' || input.object === 'device')) {
      const tKey = threatKey(input.object, input.value);
      const tUntil = now + THREAT_STORE_SECONDS * SECOND;
      const entry = this.#threats.get(tKey);
      if (entry === undefined || entry.until < tUntil)
        this.#threats.set(tKey, { object: input.object, value: input.value, until: tUntil, banId: ban.id });
    }
    this.#changed();
    return ban;
  }

  /** Lifts a ban and the threat-store entry it made. */
  lift(id: string): Ban {
    const ban = this.#byId.get(id);
    if (ban === undefined || ban.until <= this.#clock.now()) throw new RampartError('NOT_FOUND', 'ban not found');
    this.#byId.delete(id);
    this.#bans.delete(banKey(ban.siteId, ban.object, ban.value));
    if (ban.object === 'ip' || ban.object === 'device') {
      const tKey = threatKey(ban.object, ban.value);
      if (this.#threats.get(tKey)?.banId === id) this.#threats.delete(tKey);
    }
    this.#changed();
    return ban;
  }

  /**
   * The verdict's question: is this client denied on this site? A ban on the site of its IP or
   * device, or (when the site consults it) a threat-store entry of either.
   */
  isBanned(siteId: string, ip: string, device: string, now: number, threatStore: boolean): boolean {
    if (this.#bans.size === 0 && this.#threats.size === 0) return false;
    if (ip !== '' && (this.#bans.get(banKey(siteId, 'ip', ip))?.until ?? 0) > now) return true;
    if (device !== '' && (this.#bans.get(banKey(siteId, 'device', device))?.until ?? 0) > now) return true;
    if (!threatStore) return false;
    if (ip !== '' && (this.#threats.get(threatKey('ip', ip))?.until ?? 0) > now) return true;
    return device !== '' && (this.#threats.get(threatKey('device', device))?.until ?? 0) > now;
  }

  /** Whether a site bans a user or custom key (for access methods that carry one). */
  isKeyBanned(siteId: string, object: LogKeyTarget, value: string, now: number): boolean {
    return value !== '' && (this.#bans.get(banKey(siteId, object, value))?.until ?? 0) > now;
  }

  get(id: string): Ban | undefined {
    const ban = this.#byId.get(id);
    return ban !== undefined && ban.until > this.#clock.now() ? ban : undefined;
  }

  /** Active bans, newest first, a page at a time. */
  list(query: BanQuery): { bans: Ban[]; nextCursor: string | null; total: number } {
    const now = this.#clock.now();
    const needle = query.value?.trim().toLowerCase();
    const matching = [...this.#byId.values()]
      .filter(
        (b) =>
          b.until > now &&
          (query.siteId === undefined || b.siteId === query.siteId) &&
          (query.object === undefined || b.object === query.object) &&
          (!needle || b.value.toLowerCase().includes(needle)),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    let start = 0;
    if (query.cursor !== undefined) {
      const at = matching.findIndex((b) => b.id === query.cursor);
      start = at < 0 ? matching.length : at + 1;
    }
    const bans = matching.slice(start, start + query.limit);
    const more = start + query.limit < matching.length;
    return { bans, nextCursor: more ? (bans.at(-1)?.id ?? null) : null, total: matching.length };
  }

  /** Active threat-store entries. */
  threats(): ThreatEntry[] {
    const now = this.#clock.now();
    return [...this.#threats.values()].filter((t) => t.until > now);
  }

  counts(): { bans: number; threats: number } {
    return { bans: this.#bans.size, threats: this.#threats.size };
  }

  /** Drops expired entries; true when something was dropped. */
  sweep(now = this.#clock.now()): boolean {
    let dropped = false;
    for (const [key, ban] of this.#bans) {
      if (ban.until <= now) {
        this.#bans.delete(key);
        this.#byId.delete(ban.id);
        dropped = true;
      }
    }
    for (const [key, entry] of this.#threats) {
      if (entry.until <= now) {
        this.#threats.delete(key);
        dropped = true;
      }
    }
    return dropped;
  }

  snapshot(): BansSnapshot {
    const now = this.#clock.now();
    return {
      version: 1,
      bans: [...this.#byId.values()].filter((b) => b.until > now),
      threats: [...this.#threats.values()].filter((t) => t.until > now),
    };
  }

  /** Loads a snapshot (at start); entries already expired are left out, malformed ones skipped. */
  load(snapshot: unknown): void {
    if (typeof snapshot !== 'object' || snapshot === null) return;
    const { bans, threats } = snapshot as Partial<BansSnapshot>;
    const now = this.#clock.now();
    for (const ban of Array.isArray(bans) ? bans : []) {
      if (!isBan(ban) || ban.until <= now) continue;
      this.#bans.set(banKey(ban.siteId, ban.object, ban.value), ban);
      this.#byId.set(ban.id, ban);
    }
    for (const entry of Array.isArray(threats) ? threats : []) {
      if (!isThreat(entry) || entry.until <= now) continue;
      this.#threats.set(threatKey(entry.object, entry.value), entry);
    }
  }
}

const OBJECTS: readonly string[] = ['ip', 'device', 'user', 'custom1', 'custom2'];

function isBan(value: unknown): value is Ban {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as Record<string, unknown>;
  return (
    typeof b.id === 'string' &&
    typeof b.siteId === 'string' &&
    typeof b.object === 'string' &&
    OBJECTS.includes(b.object) &&
    typeof b.value === 'string' &&
    typeof b.createdAt === 'number' &&
    typeof b.until === 'number' &&
    typeof b.origin === 'object' &&
    b.origin !== null
  );
}

function isThreat(value: unknown): value is ThreatEntry {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return (
    (t.object === 'ip' || t.object === 'device') &&
    typeof t.value === 'string' &&
    typeof t.until === 'number' &&
    typeof t.banId === 'string'
  );
}
