import { PAGES, type Page, type Role } from '#engine/shared';

// Console pages (spec 1.6), the unit that roles grant: listed in engine/shared, which the API contracts read too.
export { PAGES };
export type { Page };

/**
 * Spec 5.2: administrator, the whole console; user, security overview, log configuration,
 * configuration management and rule management; guest, security overview and log management.
 */
export const ROLE_PAGES: Readonly<Record<Role, readonly Page[]>> = {
  administrator: PAGES,
  user: ['overview', 'sites', 'logConfig', 'events', 'rules'],
  guest: ['overview', 'logs'],
};

export function canSeePage(role: Role, page: Page): boolean {
  return ROLE_PAGES[role].includes(page);
}
