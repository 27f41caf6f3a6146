import type { Role } from '#engine/shared';

/** Console pages (spec 1.6), the unit that roles grant. */
export const PAGES = ['overview', 'logs', 'sites', 'logConfig', 'events', 'rules', 'enterprise'] as const;
export type Page = (typeof PAGES)[number];

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
