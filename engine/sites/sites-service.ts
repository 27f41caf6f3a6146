import {
  DEFAULT_CNAME,
  copyName,
  RampartError,
  isRampartError,
  newId,
  newSecret,
  problemsOf,
  validationFailed,
  SECOND,
  type Clock,
  type Edition,
  type FieldProblem,
  type Random,
} from '#engine/shared';
import { accessLogConfig, type ConfigSlice, type SiteRecord, type SiteGlobalRecord } from '#engine/config-store';
import { compileSite, type CompiledSite } from './compiled-site.ts';
import { checkSiteCertificate, coversDomain, describeCertificate } from './site-certificate.ts';
import {
  automaticGatewayAddress,
  gatewayAddressProblem,
  systemInterfaceAddresses,
  type GatewayAddress,
  type GatewayListener,
  type InterfaceAddresses,
} from './gateway-address.ts';
import type { SiteSettings, SiteGlobalInput } from './site-input.ts';

/** A plugin is connected while its heartbeats arrive within this window (spec 9.4's 10 s). */
export const HEARTBEAT_WINDOW_MS = 10 * SECOND;

export interface Heartbeat {
  at: number;
  version: string;
  address: string;
}

export interface SiteStatus {
  connected: boolean;
  protection: boolean;
  lastHeartbeatAt: number | null;
  keeperVersion: string | null;
}

export interface SitesServiceDeps {
  /** The sites, their global configuration, the gateway address and the sites' log configurations. */
  store: ConfigSlice<'sites' | 'siteGlobal' | 'gateway' | 'logConfigs'>;
  clock: Clock;
  random: Random;
  edition: Edition;
  /** Where the gateway API listens, for the automatic gateway address (default: loopback 9081). */
  gateway?: () => GatewayListener;
  /** This host's LAN addresses (tests give their own). */
  interfaces?: InterfaceAddresses;
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Sites (A: site configurations) and B's global configuration: create, edit, copy, delete, search,
 * unique names, list validation, the Access Key, plugin heartbeats and the compiled form the verdict
 * pipeline reads. Compiled sites are cached and rebuilt after any change.
 */
export class SitesService {
  readonly #deps: SitesServiceDeps;
  readonly #heartbeats = new Map<string, Heartbeat>();
  #compiled = new Map<string, CompiledSite>();
  /** The configuration generation (sites, global configuration) the compiled sites were built from. */
  #compiledAt = -1;

  constructor(deps: SitesServiceDeps) {
    this.#deps = deps;
  }

  get edition(): Edition {
    return this.#deps.edition;
  }

  /** Changes whenever the sites or their global configuration change (the proxy follows it). */
  get generation(): number {
    return this.#deps.store.generation;
  }

  list(search?: string): SiteRecord[] {
    const needle = search?.trim().toLowerCase();
    return this.#deps.store.data.sites
      .filter((s) => !needle || s.name.toLowerCase().includes(needle) || s.domain.toLowerCase().includes(needle))
      .toSorted((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
  }

  get(id: string): SiteRecord {
    const site = this.#deps.store.data.sites.find((s) => s.id === id);
    if (!site) throw new RampartError('NOT_FOUND', `No site with ID ${id}`, { field: 'id', params: { id } });
    return site;
  }

  find(id: string): SiteRecord | undefined {
    return this.#deps.store.data.sites.find((s) => s.id === id);
  }

  async create(input: SiteSettings): Promise<SiteRecord> {
    const now = this.#deps.clock.now();
    const record: SiteRecord = {
      ...structuredClone(input),
      id: newId('site', this.#deps.random),
      createdAt: now,
      updatedAt: now,
    };
    this.#validate(record);
    return this.#deps.store.update((doc) => {
      this.#checkUniqueName(doc.sites, record.name, record.id);
      doc.sites.push(record);
      doc.logConfigs.push(
        accessLogConfig(newId('log', this.#deps.random), `${record.name} access log`, record.id, now),
      );
      return record;
    });
  }

  async update(id: string, input: SiteSettings): Promise<SiteRecord> {
    const existing = this.get(id);
    const record: SiteRecord = {
      ...structuredClone(input),
      id,
      createdAt: existing.createdAt,
      updatedAt: this.#deps.clock.now(),
      // The certificate is uploaded on its own and stays through edits of the settings.
      ...(existing.certificate ? { certificate: existing.certificate } : {}),
    };
    this.#validate(record);
    return this.#deps.store.update((doc) => {
      this.#checkUniqueName(doc.sites, record.name, id);
      const index = doc.sites.findIndex((s) => s.id === id);
      if (index === -1) throw new RampartError('NOT_FOUND', `No site with ID ${id}`, { field: 'id' });
      doc.sites[index] = record;
      return record;
    });
  }

  /**
   * Stores a CNAME site's certificate chain and key after checking them (PEM, key matches,
   * valid now, names the domain); the proxy serves it on the site's next TLS handshake.
   */
  async setCertificate(id: string, input: { certificate: string; key: string }): Promise<SiteRecord> {
    const site = this.get(id);
    if (site.accessMethod !== 'cname') {
      throw new RampartError('VALIDATION_FAILED', 'accessMethod: a certificate is for CNAME-access sites', {
        field: 'accessMethod',
      });
    }
    const checked = checkSiteCertificate(input, site.domain, this.#deps.clock.now());
    return this.#deps.store.update((doc) => {
      const record = doc.sites.find((s) => s.id === id);
      if (!record) throw new RampartError('NOT_FOUND', `No site with ID ${id}`, { field: 'id' });
      record.certificate = { ...checked, uploadedAt: this.#deps.clock.now() };
      record.updatedAt = this.#deps.clock.now();
      return record;
    });
  }

  async removeCertificate(id: string): Promise<SiteRecord> {
    this.get(id);
    return this.#deps.store.update((doc) => {
      const record = doc.sites.find((s) => s.id === id);
      if (!record) throw new RampartError('NOT_FOUND', `No site with ID ${id}`, { field: 'id' });
      delete record.certificate;
      record.updatedAt = this.#deps.clock.now();
      return record;
    });
  }

  /** Copies a site under the first free name of the form "name (copy)", "name (copy 2)", ... */
  async copy(id: string): Promise<SiteRecord> {
    const source = this.get(id);
    const name = copyName(
      source.name,
      this.#deps.store.data.sites.map((s) => s.name),
      Number.POSITIVE_INFINITY,
      (n) => (n === 1 ? ' (copy)' : ` (copy ${n})`),
    );
    const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = source;
    return this.create({
      ...settings,
      cname: source.cname ?? DEFAULT_CNAME,
      pluginMode: source.pluginMode ?? 'verdict',
      name,
    });
  }

  async remove(id: string): Promise<void> {
    await this.#deps.store.update((doc) => {
      const index = doc.sites.findIndex((s) => s.id === id);
      if (index === -1) throw new RampartError('NOT_FOUND', `No site with ID ${id}`, { field: 'id' });
      doc.sites.splice(index, 1);
      doc.logConfigs = doc.logConfigs.filter((l) => l.siteId !== id);
    });
    this.#heartbeats.delete(id);
  }

  global(): SiteGlobalRecord {
    return this.#deps.store.data.siteGlobal;
  }

  async updateGlobal(input: SiteGlobalInput): Promise<SiteGlobalRecord> {
    return this.#deps.store.update((doc) => {
      doc.siteGlobal = { ...doc.siteGlobal, ...input };
      return doc.siteGlobal;
    });
  }

  async rotateAccessKey(): Promise<SiteGlobalRecord> {
    return this.#deps.store.update((doc) => {
      doc.siteGlobal = { ...doc.siteGlobal, accessKey: newSecret(this.#deps.random) };
      return doc.siteGlobal;
    });
  }

  /** The address plugin bundles tell gateways to use, and where it comes from. */
  gatewayAddress(): GatewayAddress {
    const listener = this.#deps.gateway?.() ?? { host: '127.0.0.1', port: 9081 };
    const automatic = automaticGatewayAddress(listener, this.#deps.interfaces ?? systemInterfaceAddresses);
    const configured = this.#deps.store.data.gateway.advertisedAddress;
    const listening = `${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`;
    if (configured !== '') return { address: configured, source: 'console', automatic, listening };
    return { address: automatic, source: listener.environment ? 'environment' : 'detected', automatic, listening };
  }

  /** Sets the address bundles advertise; '' goes back to the automatic one. */
  async setGatewayAddress(address: string): Promise<GatewayAddress> {
    const value = address.trim();
    const problem = value === '' ? null : gatewayAddressProblem(value);
    if (problem) throw new RampartError('VALIDATION_FAILED', `address: ${problem}`, { field: 'address' });
    await this.#deps.store.update((doc) => {
      doc.gateway = { advertisedAddress: value };
    });
    return this.gatewayAddress();
  }

  /** The last heartbeat (or verdict with the right key) from a site's gateway. */
  heartbeatOf(id: string): Heartbeat | undefined {
    this.get(id);
    const beat = this.#heartbeats.get(id);
    return beat ? { ...beat } : undefined;
  }

  /** The compiled site for the hot path, or undefined for an unknown id. */
  compiled(id: string): CompiledSite | undefined {
    const data = this.#deps.store.data;
    const generation = this.#deps.store.generation;
    if (this.#compiledAt !== generation) {
      // Recompiled lazily after a change of the sites' slice, not after an unrelated write (a sign-in).
      this.#compiled = new Map();
      this.#compiledAt = generation;
    }
    let site = this.#compiled.get(id);
    if (!site) {
      const record = data.sites.find((s) => s.id === id);
      if (!record) return undefined;
      site = compileSite(record, data.siteGlobal, this.#deps.edition);
      this.#compiled.set(id, site);
    }
    return site;
  }

  /** A verdict request with the right Access Key also shows the gateway is connected. */
  markSeen(id: string): void {
    const beat = this.#heartbeats.get(id);
    const now = this.#deps.clock.now();
    if (beat) beat.at = now;
    else this.#heartbeats.set(id, { at: now, version: '', address: '' });
  }

  recordHeartbeat(id: string, heartbeat: Omit<Heartbeat, 'at'>): void {
    this.get(id);
    this.#heartbeats.set(id, { ...heartbeat, at: this.#deps.clock.now() });
  }

  /** The addresses the sites' latest heartbeats came from: gateways that showed the Access Key. */
  heartbeatAddresses(): string[] {
    const addresses: string[] = [];
    for (const beat of this.#heartbeats.values()) if (beat.address !== '') addresses.push(beat.address);
    return addresses;
  }

  status(id: string): SiteStatus {
    const site = this.get(id);
    const beat = this.#heartbeats.get(id);
    return {
      connected: beat !== undefined && this.#deps.clock.now() - beat.at < HEARTBEAT_WINDOW_MS,
      protection: site.runMode !== 'pass',
      lastHeartbeatAt: beat?.at ?? null,
      keeperVersion: beat?.version ?? null,
    };
  }

  /** Every rule a site breaks, in one error (the console marks each field and line). */
  #validate(record: SiteRecord): void {
    const problems: FieldProblem[] = [];
    const problem = (field: string, message: string): void => {
      problems.push({ field, message: `${field}: ${message}` });
    };
    if (this.#deps.edition === 'B' && record.domain === '') problem('domain', 'is required');
    if (this.#deps.edition === 'A' && (record.accessMethod === 'cname' || record.accessMethod === 'bypass')) {
      problem('accessMethod', 'edition A offers plugin and pluginless access');
    }
    if (this.#deps.edition === 'B' && record.accessMethod === 'pluginless') {
      problem('accessMethod', 'edition B offers cname, plugin and bypass access');
    }
    if (record.accessMethod === 'plugin' && record.pluginMode === 'inline' && record.cname) {
      if (record.cname.originAddress === '') {
        problem(
          'cname.originAddress',
          'is required when requests pass through Rampart (the upstream nginx passed them to)',
        );
      }
      if (!record.cname.http) problem('cname.http', "is the inline proxy's port: it must be on");
    }
    if (record.accessMethod === 'cname' && record.cname) {
      const cname = record.cname;
      if (cname.originAddress === '') problem('cname.originAddress', 'is required for CNAME access');
      if (!cname.http && !cname.https) problem('cname.http', 'choose HTTP, HTTPS or both');
      if (cname.http && cname.https && cname.httpPort === cname.httpsPort) {
        problem('cname.httpsPort', 'must differ from the HTTP port');
      }
    }
    // An uploaded certificate must keep naming the site: a new domain needs a new certificate first.
    if (record.certificate) {
      const names = describeCertificate(record.certificate, this.#deps.clock.now())?.names ?? [];
      if (!coversDomain(names, record.domain)) {
        problem(
          'domain',
          `the uploaded certificate does not name ${record.domain || 'an empty domain'} (it names ${names.join(', ') || 'no host'}): remove it or upload one for the new domain first`,
        );
      }
    }
    if (record.sourceIp.mode === 'custom' && record.sourceIp.customHeader === '') {
      problem('sourceIp.customHeader', 'is required for the custom source IP mode');
    }
    try {
      compileSite(record, this.#deps.store.data.siteGlobal, this.#deps.edition);
    } catch (error) {
      if (!isRampartError(error)) throw error;
      problems.push(...problemsOf(error));
    }
    if (problems.length > 0) throw validationFailed(problems);
  }

  #checkUniqueName(sites: readonly SiteRecord[], name: string, id: string): void {
    if (sites.some((s) => s.id !== id && sameName(s.name, name))) {
      throw new RampartError('NAME_TAKEN', `name: a site named "${name}" already exists`, {
        field: 'name',
        params: { name },
      });
    }
  }
}
