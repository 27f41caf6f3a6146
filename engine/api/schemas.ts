import { ROLE_PAGES } from '#engine/accounts';
import type { AccountRecord } from './deps.ts';
import type { AccountView } from './contracts/index.ts';

// The contracts (and the schemas they are made of), for the routes: a route file imports them from
// here, as a file in another folder of this module is out of its reach by the lint's module rule.
export * from './contracts/index.ts';

export function toAccountView(a: AccountRecord): AccountView {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    role: a.role,
    tenant: a.tenant,
    status: a.activated ? 'activated' : 'pending',
    enabled: a.enabled,
    createdAt: a.createdAt,
    activatedAt: a.activatedAt,
    lastSignInAt: a.lastSignInAt,
    permissions: [...ROLE_PAGES[a.role]],
    twoFactorEnabled: a.twoFactor !== null,
  };
}
