import { RampartError, DAY, MODULES, type Clock, type ModuleKey, type Edition } from '#engine/shared';
import type { ConfigSlice, FormalLicenceRecord, PurchaseRecord } from '#engine/config-store';
import { verifyLicence } from './licence-file.ts';

export const TRIAL_DAYS = 30;

export type ModuleState = 'activated' | 'not_purchased' | 'expired';

export interface ModuleView {
  module: ModuleKey;
  state: ModuleState;
  expiresAt: number | null;
}

export interface LicenceView {
  enterpriseId: string;
  customerName: string;
  versionType: 'trial' | 'formal';
  edition: Edition;
  trialEndsAt: number | null;
  importedAt: number | null;
  modules: ModuleView[];
  vendorKeyConfigured: boolean;
}

export interface LicenceServiceDeps {
  /** The licence, the installation (its id and trial start) and the audit trail. */
  store: ConfigSlice<'licence' | 'installation' | 'audit'>;
  clock: Clock;
  edition: Edition;
  /** The vendor's public key (PEM), or undefined when none is configured: imports are then refused. */
  vendorPublicKeyPem: string | undefined;
}

/**
 * Licence state: a new install is a trial with every module activated for 30 days; a signed
 * licence file makes it formal and sets modules, expiries and purchase records. Module state is
 * computed from the clock on every question, so expiry needs no timer.
 */
export class LicenceService {
  constructor(private readonly deps: LicenceServiceDeps) {}

  view(): LicenceView {
    const { store, clock, edition } = this.deps;
    const formal = store.data.licence;
    const now = clock.now();
    return {
      enterpriseId: formal?.enterpriseId ?? store.data.installation.id,
      customerName: formal?.customerName ?? '',
      versionType: formal ? 'formal' : 'trial',
      edition,
      trialEndsAt: formal ? null : this.#trialEndsAt(),
      importedAt: formal?.importedAt ?? null,
      modules: MODULES.map((module) => this.#moduleView(module, formal, now)),
      vendorKeyConfigured: this.deps.vendorPublicKeyPem !== undefined,
    };
  }

  isActive(module: ModuleKey): boolean {
    return this.#moduleView(module, this.deps.store.data.licence, this.deps.clock.now()).state === 'activated';
  }

  purchases(): PurchaseRecord[] {
    return [...(this.deps.store.data.licence?.purchases ?? [])].sort((a, b) => b.orderTime - a.orderTime);
  }

  async import(text: string): Promise<LicenceView> {
    if (!this.deps.vendorPublicKeyPem) {
      throw new RampartError(
        'LICENCE_NO_VENDOR_KEY',
        'No vendor public key is configured (RAMPART_LICENCE_PUBLIC_KEY), so licence files cannot be verified',
      );
    }
    const payload = verifyLicence(text, this.deps.vendorPublicKeyPem);
    const now = this.deps.clock.now();
    const record: FormalLicenceRecord = {
      enterpriseId: payload.enterpriseId,
      customerName: payload.customerName,
      issuedAt: Date.parse(payload.issuedAt),
      importedAt: now,
      modules: payload.modules.map((m) => ({ module: m.module, expiresAt: Date.parse(m.expiresAt) })),
      purchases: payload.purchases.map((p) => ({
        orderTime: Date.parse(p.orderTime),
        orderNumber: p.orderNumber,
        product: p.product,
        expiresAt: Date.parse(p.expiresAt),
        status: p.status,
        remark: p.remark,
      })),
    };
    await this.deps.store.update((doc) => {
      doc.licence = record;
      doc.audit.push({ at: now, actorId: null, action: 'licence.import', targetId: record.enterpriseId });
    });
    return this.view();
  }

  /** Renewal happens through the channel partner; the appliance only says so. */
  renew(orderNumber: string): never {
    throw new RampartError('RENEW_CONTACT_SALES', 'To renew, contact your channel sales representative', {
      params: { orderNumber },
    });
  }

  #trialEndsAt(): number {
    return this.deps.store.data.installation.createdAt + TRIAL_DAYS * DAY;
  }

  #moduleView(module: ModuleKey, formal: FormalLicenceRecord | null, now: number): ModuleView {
    if (!formal) {
      const expiresAt = this.#trialEndsAt();
      return { module, state: now < expiresAt ? 'activated' : 'expired', expiresAt };
    }
    const entry = formal.modules.find((m) => m.module === module);
    if (!entry) return { module, state: 'not_purchased', expiresAt: null };
    return { module, state: now < entry.expiresAt ? 'activated' : 'expired', expiresAt: entry.expiresAt };
  }
}
