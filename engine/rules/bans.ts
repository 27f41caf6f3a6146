import { LOG_KEY_TARGETS, RampartError, SECOND, type Clock, type LogKeyTarget } from '#engine/shared';

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

export interface BanQuery {
  siteId?: string;
  object?: LogKeyTarget;
  /** Part of the value (an address, a device id). */
  value?: string;
  limit: number;
  /** The id of the last ban of the previous page. */
  cursor?: string;
}

/** A slot's object, stored as a byte: its position in LOG_KEY_TARGETS plus one; 0 is a free slot. */
const FREE = 0;
const IP = 1;
const DEVICE = 2;
const objectCode = (object: LogKeyTarget): number => LOG_KEY_TARGETS.indexOf(object) + 1;
const objectOf = (code: number): LogKeyTarget => LOG_KEY_TARGETS[code - 1]!;

/** A site's bans: per object (by code), value -> slot. */
interface SiteIndex {
  /** The one copy of the site id every slot of the site refers to. */
  siteId: string;
  byObject: Map<string, number>[];
}

/**
 * Numbered slots with a free list, for entries stored as columns (one array per field, indexed by
 * slot) rather than one object each: a hundred thousand entries are then a few arrays and their
 * strings, which the garbage collector marks in a fraction of the time a hundred thousand objects
 * (and their boxed numbers) take, and which a lookup reads without allocating.
 */
class Slots {
  #free: number[] = [];
  /** Slots ever used: every slot below is taken or free. */
  high = 0;
  capacity = 0;

  /** A slot to fill; `grow` is called first when the columns must grow to hold it. */
  take(grow: (capacity: number) => void): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.high === this.capacity) {
      this.capacity = Math.max(1024, this.capacity * 2);
      grow(this.capacity);
    }
    return this.high++;
  }

  give(slot: number): void {
    this.#free.push(slot);
  }
}

function grownFloats(column: Float64Array, capacity: number) {
  const next = new Float64Array(capacity);
  next.set(column);
  return next;
}

function grownBytes(column: Uint8Array, capacity: number) {
  const next = new Uint8Array(capacity);
  next.set(column);
  return next;
}

/**
 * Bans and the threat store, in memory. The verdict's check is a few Map reads (site, then
 * object's value -> slot; the threat store's value -> slot) and a read of the slot's `until`,
 * O(1) whatever the number of entries and without allocating. An entry counts only while
 * `until > now`, so expiry is exact to the millisecond; `sweep` frees expired slots to bound memory,
 * a bounded number per call if asked. Persistence is the owner's (`snapshot` / `load` after every
 * change, debounced); `Ban` and `ThreatEntry` objects are made only for the callers that read them.
 */
export class BanStore {
  readonly #clock: Clock;
  readonly #changed: () => void;
  #seq = 0;

  readonly #sites = new Map<string, SiteIndex>();
  readonly #byId = new Map<string, number>();
  readonly #bans = new Slots();
  #object = new Uint8Array(0);
  #until = new Float64Array(0);
  #createdAt = new Float64Array(0);
  readonly #id: string[] = [];
  readonly #site: string[] = [];
  readonly #value: string[] = [];
  readonly #origin: (BanOrigin | null)[] = [];
  #banSweep = 0;

  /** The threat store: value -> slot, for IPs (0) and devices (1). */
  readonly #threatIndex: readonly Map<string, number>[] = [new Map(), new Map()];
  readonly #threats = new Slots();
  #threatObject = new Uint8Array(0);
  #threatUntil = new Float64Array(0);
  readonly #threatValue: string[] = [];
  readonly #threatBanId: string[] = [];
  #threatSweep = 0;

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
    const code = objectCode(input.object);
    let slot = this.#siteIndex(input.siteId).byObject[code]!.get(input.value);
    if (slot !== undefined && this.#until[slot]! > now) {
      if (until > this.#until[slot]!) {
        this.#until[slot] = until;
        this.#origin[slot] = input.origin;
      }
    } else {
      if (slot !== undefined) this.#dropBan(slot);
      const id = `ban_${now.toString(36)}_${(this.#seq++).toString(36)}`;
      slot = this.#addBan(id, input.siteId, code, input.value, now, until, input.origin);
    }
    if (input.threatStore && (code === IP || code === DEVICE))
      this.#addThreat(code, input.value, now + THREAT_STORE_SECONDS * SECOND, this.#id[slot]!);
    this.#changed();
    return this.#banAt(slot);
  }

  /** Lifts a ban and the threat-store entry it made. */
  lift(id: string): Ban {
    const slot = this.#byId.get(id);
    if (slot === undefined || this.#until[slot]! <= this.#clock.now())
      throw new RampartError('NOT_FOUND', 'ban not found');
    const ban = this.#banAt(slot);
    this.#dropBan(slot);
    const code = objectCode(ban.object);
    if (code === IP || code === DEVICE) {
      const threat = this.#threatIndex[code - 1]!.get(ban.value);
      if (threat !== undefined && this.#threatBanId[threat] === id) this.#dropThreat(threat);
    }
    this.#changed();
    return ban;
  }

  /**
   * The verdict's question: is this client denied on this site? A ban on the site of its IP or
   * device, or (when the site consults it) a threat-store entry of either.
   */
  isBanned(siteId: string, ip: string, device: string, now: number, threatStore: boolean): boolean {
    const site = this.#sites.get(siteId);
    if (site !== undefined) {
      if (ip !== '' && this.#banHolds(site.byObject[IP]!.get(ip), now)) return true;
      if (device !== '' && this.#banHolds(site.byObject[DEVICE]!.get(device), now)) return true;
    }
    if (!threatStore) return false;
    if (ip !== '' && this.#threatHolds(this.#threatIndex[0]!.get(ip), now)) return true;
    return device !== '' && this.#threatHolds(this.#threatIndex[1]!.get(device), now);
  }

  /** Whether a site bans a user or custom key (for access methods that carry one). */
  isKeyBanned(siteId: string, object: LogKeyTarget, value: string, now: number): boolean {
    if (value === '') return false;
    return this.#banHolds(this.#sites.get(siteId)?.byObject[objectCode(object)]!.get(value), now);
  }

  get(id: string): Ban | undefined {
    const slot = this.#byId.get(id);
    return this.#banHolds(slot, this.#clock.now()) ? this.#banAt(slot!) : undefined;
  }

  /** Active bans, newest first, a page at a time. */
  list(query: BanQuery): { bans: Ban[]; nextCursor: string | null; total: number } {
    const now = this.#clock.now();
    const needle = query.value?.trim().toLowerCase();
    const code = query.object === undefined ? FREE : objectCode(query.object);
    const matching: number[] = [];
    for (let slot = 0; slot < this.#bans.high; slot++) {
      if (
        this.#object[slot] !== FREE &&
        this.#until[slot]! > now &&
        (query.siteId === undefined || this.#site[slot] === query.siteId) &&
        (code === FREE || this.#object[slot] === code) &&
        (!needle || this.#value[slot]!.toLowerCase().includes(needle))
      )
        matching.push(slot);
    }
    const createdAt = this.#createdAt;
    const ids = this.#id;
    matching.sort((a, b) => createdAt[b]! - createdAt[a]! || (ids[a]! < ids[b]! ? 1 : -1));
    let start = 0;
    if (query.cursor !== undefined) {
      const at = matching.findIndex((slot) => ids[slot] === query.cursor);
      start = at < 0 ? matching.length : at + 1;
    }
    const bans = matching.slice(start, start + query.limit).map((slot) => this.#banAt(slot));
    const more = start + query.limit < matching.length;
    return { bans, nextCursor: more ? (bans.at(-1)?.id ?? null) : null, total: matching.length };
  }

  /** Active threat-store entries. */
  threats(): ThreatEntry[] {
    const now = this.#clock.now();
    const entries: ThreatEntry[] = [];
    for (let slot = 0; slot < this.#threats.high; slot++)
      if (this.#threatHolds(slot, now)) entries.push(this.#threatAt(slot));
    return entries;
  }

  /** How many threat-store entries are active (threats().length without building them). */
  activeThreats(): number {
    const now = this.#clock.now();
    let n = 0;
    for (let slot = 0; slot < this.#threats.high; slot++) if (this.#threatHolds(slot, now)) n++;
    return n;
  }

  /** Entries held (active, or expired and not swept yet). */
  counts(): { bans: number; threats: number } {
    return { bans: this.#byId.size, threats: this.#threatIndex[0]!.size + this.#threatIndex[1]!.size };
  }

  /**
   * Frees expired entries, at most `limit` of them (the slots are walked on from where the last
   * call stopped, so a mass expiry is spread over calls); true when something was freed.
   */
  sweep(now = this.#clock.now(), limit = Infinity): boolean {
    // Dropping a slot never reallocates the columns, so they can be read through locals.
    let freed = 0;
    const banSlots = this.#bans.high;
    const object = this.#object;
    const until = this.#until;
    let slot = this.#banSweep;
    for (let n = banSlots; n > 0 && freed < limit; n--, slot++) {
      if (slot >= banSlots) slot = 0;
      if (object[slot] !== FREE && until[slot]! <= now) {
        this.#dropBan(slot);
        freed++;
      }
    }
    this.#banSweep = slot;
    const threatSlots = this.#threats.high;
    const threatObject = this.#threatObject;
    const threatUntil = this.#threatUntil;
    slot = this.#threatSweep;
    for (let n = threatSlots; n > 0 && freed < limit; n--, slot++) {
      if (slot >= threatSlots) slot = 0;
      if (threatObject[slot] !== FREE && threatUntil[slot]! <= now) {
        this.#dropThreat(slot);
        freed++;
      }
    }
    this.#threatSweep = slot;
    return freed > 0;
  }

  snapshot(): BansSnapshot {
    const now = this.#clock.now();
    const bans: Ban[] = [];
    for (let slot = 0; slot < this.#bans.high; slot++) if (this.#banHolds(slot, now)) bans.push(this.#banAt(slot));
    return { version: 1, bans, threats: this.threats() };
  }

  /**
   * `snapshot()` as JSON text, in pieces, made at most `sliceMs` at a time with the event loop free
   * in between (100,000 bans took 50-70 ms to gather and 110-180 ms to serialise at once, once a
   * second while bans change). Each entry is read whole within one turn; one made or lifted while
   * the pieces are made may be in the text or not, and the change's own save follows.
   */
  async *snapshotPieces(sliceMs = 5): AsyncGenerator<string> {
    const now = this.#clock.now();
    yield '{"version":1,"bans":[';
    yield* slicedList(
      () => this.#bans.high,
      (slot) => (this.#banHolds(slot, now) ? JSON.stringify(this.#banAt(slot)) : null),
      sliceMs,
    );
    yield '],"threats":[';
    yield* slicedList(
      () => this.#threats.high,
      (slot) => (this.#threatHolds(slot, now) ? JSON.stringify(this.#threatAt(slot)) : null),
      sliceMs,
    );
    yield ']}';
  }

  /** Loads a snapshot (at start); entries already expired are left out, malformed ones skipped. */
  load(snapshot: unknown): void {
    if (typeof snapshot !== 'object' || snapshot === null) return;
    const { bans, threats } = snapshot as Partial<BansSnapshot>;
    const now = this.#clock.now();
    for (const ban of Array.isArray(bans) ? bans : []) {
      if (!isBan(ban) || ban.until <= now || this.#byId.has(ban.id)) continue;
      const code = objectCode(ban.object);
      const existing = this.#siteIndex(ban.siteId).byObject[code]!.get(ban.value);
      if (existing !== undefined) {
        if (this.#until[existing]! >= ban.until) continue;
        this.#dropBan(existing);
      }
      this.#addBan(ban.id, ban.siteId, code, ban.value, ban.createdAt, ban.until, ban.origin);
    }
    for (const entry of Array.isArray(threats) ? threats : []) {
      if (!isThreat(entry) || entry.until <= now) continue;
      // The threat's strings are its ban's when that is loaded: one copy of each.
      const banSlot = this.#byId.get(entry.banId);
      const banId = banSlot === undefined ? entry.banId : this.#id[banSlot]!;
      const value = banSlot !== undefined && this.#value[banSlot] === entry.value ? this.#value[banSlot] : entry.value;
      this.#addThreat(objectCode(entry.object), value, entry.until, banId);
    }
  }

  #siteIndex(siteId: string): SiteIndex {
    let site = this.#sites.get(siteId);
    if (site === undefined) {
      site = { siteId, byObject: Array.from({ length: LOG_KEY_TARGETS.length + 1 }, () => new Map<string, number>()) };
      this.#sites.set(siteId, site);
    }
    return site;
  }

  #banHolds(slot: number | undefined, now: number): boolean {
    return slot !== undefined && this.#object[slot] !== FREE && this.#until[slot]! > now;
  }

  #threatHolds(slot: number | undefined, now: number): boolean {
    return slot !== undefined && this.#threatObject[slot] !== FREE && this.#threatUntil[slot]! > now;
  }

  #addBan(
    id: string,
    siteId: string,
    code: number,
    value: string,
    createdAt: number,
    until: number,
    origin: BanOrigin,
  ): number {
    const site = this.#siteIndex(siteId);
    const slot = this.#bans.take((capacity) => {
      this.#object = grownBytes(this.#object, capacity);
      this.#until = grownFloats(this.#until, capacity);
      this.#createdAt = grownFloats(this.#createdAt, capacity);
    });
    this.#object[slot] = code;
    this.#until[slot] = until;
    this.#createdAt[slot] = createdAt;
    this.#id[slot] = id;
    this.#site[slot] = site.siteId;
    this.#value[slot] = value;
    this.#origin[slot] = origin;
    site.byObject[code]!.set(value, slot);
    this.#byId.set(id, slot);
    return slot;
  }

  #dropBan(slot: number): void {
    this.#sites.get(this.#site[slot]!)?.byObject[this.#object[slot]!]!.delete(this.#value[slot]!);
    this.#byId.delete(this.#id[slot]!);
    this.#object[slot] = FREE;
    this.#until[slot] = 0;
    this.#id[slot] = '';
    this.#site[slot] = '';
    this.#value[slot] = '';
    this.#origin[slot] = null;
    this.#bans.give(slot);
  }

  /** A threat-store entry of `value` until `until`, unless one lasts as long already. */
  #addThreat(code: number, value: string, until: number, banId: string): void {
    const index = this.#threatIndex[code - 1]!;
    let slot = index.get(value);
    if (slot !== undefined && this.#threatUntil[slot]! >= until) return;
    if (slot === undefined) {
      slot = this.#threats.take((capacity) => {
        this.#threatObject = grownBytes(this.#threatObject, capacity);
        this.#threatUntil = grownFloats(this.#threatUntil, capacity);
      });
      this.#threatObject[slot] = code;
      this.#threatValue[slot] = value;
      index.set(value, slot);
    }
    this.#threatUntil[slot] = until;
    this.#threatBanId[slot] = banId;
  }

  #dropThreat(slot: number): void {
    this.#threatIndex[this.#threatObject[slot]! - 1]!.delete(this.#threatValue[slot]!);
    this.#threatObject[slot] = FREE;
    this.#threatUntil[slot] = 0;
    this.#threatValue[slot] = '';
    this.#threatBanId[slot] = '';
    this.#threats.give(slot);
  }

  #banAt(slot: number): Ban {
    return {
      id: this.#id[slot]!,
      siteId: this.#site[slot]!,
      object: objectOf(this.#object[slot]!),
      value: this.#value[slot]!,
      createdAt: this.#createdAt[slot]!,
      until: this.#until[slot]!,
      origin: this.#origin[slot]!,
    };
  }

  #threatAt(slot: number): ThreatEntry {
    return {
      object: this.#threatObject[slot] === IP ? 'ip' : 'device',
      value: this.#threatValue[slot]!,
      until: this.#threatUntil[slot]!,
      banId: this.#threatBanId[slot]!,
    };
  }
}

/**
 * The JSON items of slots 0 to `size()` (`item`: null for a free or expired slot), comma-separated,
 * in pieces of at most `sliceMs` of work, with a turn of the event loop after each.
 */
async function* slicedList(
  size: () => number,
  item: (slot: number) => string | null,
  sliceMs: number,
): AsyncGenerator<string> {
  let deadline = performance.now() + sliceMs;
  let pending: string[] = [];
  let separator = '';
  for (let slot = 0; slot < size(); slot++) {
    const json = item(slot);
    if (json !== null) pending.push(json);
    if ((slot & 255) !== 255 || performance.now() < deadline) continue;
    if (pending.length > 0) {
      yield `${separator}${pending.join(',')}`;
      separator = ',';
      pending = [];
    }
    await new Promise((resolve) => setImmediate(resolve));
    deadline = performance.now() + sliceMs;
  }
  if (pending.length > 0) yield `${separator}${pending.join(',')}`;
}

function isBan(value: unknown): value is Ban {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as Record<string, unknown>;
  return (
    typeof b.id === 'string' &&
    typeof b.siteId === 'string' &&
    typeof b.object === 'string' &&
    (LOG_KEY_TARGETS as readonly string[]).includes(b.object) &&
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
