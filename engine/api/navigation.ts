import type { Edition, ModuleKey, Role } from '#engine/shared';
import { canSeePage, type Page } from '#engine/accounts';
import type { MenuItem } from './schemas.ts';

interface MenuDef {
  id: string;
  path: string;
  page: Page;
  /** Shown when any of these modules is active (none listed: always). */
  modules?: readonly ModuleKey[];
  /** Pages that exist in this build. A menu whose page is not built is never shown. */
  built: boolean;
  /** Shown only in these editions (none listed: both). */
  editions?: readonly Edition[];
  children?: MenuDef[];
}

/** The console menus of spec 1.6 and their module gating (spec 1.7). */
const MENUS: readonly MenuDef[] = [
  { id: 'overview', path: '/overview', page: 'overview', built: true },
  {
    id: 'logs',
    path: '/logs',
    page: 'logs',
    built: true,
    children: [{ id: 'logs.search', path: '/logs/search', page: 'logs', built: true }],
  },
  {
    id: 'config',
    path: '/config',
    page: 'sites',
    built: true,
    children: [
      { id: 'config.sites', path: '/config/sites', page: 'sites', built: true },
      { id: 'config.events', path: '/config/events', page: 'events', modules: ['advanced'], built: true },
      { id: 'config.logConfig', path: '/config/log-config', page: 'logConfig', modules: ['advanced'], built: true },
    ],
  },
  // Rule Management: the basic rules tab (both editions), the anti-bot tab (B) and, with the advanced
  // module, the event-based rules tab and the bans page (/rules/bans).
  { id: 'rules', path: '/rules', page: 'rules', modules: ['basic', 'advanced'], built: true },
  {
    id: 'enterprise',
    path: '/enterprise',
    page: 'enterprise',
    built: true,
    children: [
      { id: 'enterprise.info', path: '/enterprise/info', page: 'enterprise', built: true },
      { id: 'enterprise.accounts', path: '/enterprise/accounts', page: 'enterprise', built: true },
      { id: 'enterprise.purchases', path: '/enterprise/purchases', page: 'enterprise', built: true },
      { id: 'enterprise.storage', path: '/enterprise/storage', page: 'enterprise', built: true },
      { id: 'enterprise.system', path: '/enterprise/system', page: 'enterprise', built: true },
      { id: 'enterprise.backup', path: '/enterprise/backup', page: 'enterprise', built: true },
    ],
  },
];

export function navigationFor(role: Role, edition: Edition, isActive: (module: ModuleKey) => boolean): MenuItem[] {
  const visible = (m: MenuDef): boolean =>
    m.built &&
    canSeePage(role, m.page) &&
    (m.editions === undefined || m.editions.includes(edition)) &&
    (m.modules === undefined || m.modules.some(isActive));
  const build = (m: MenuDef): MenuItem => {
    const children = m.children?.filter(visible).map(build);
    return children ? { id: m.id, path: m.path, children } : { id: m.id, path: m.path };
  };
  return MENUS.filter(visible).map(build);
}
