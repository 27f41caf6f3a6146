/** Module names follow the edition: `advanced` is the risk-control module in A, the advanced module in B. */
import type { Edition, ModuleKey } from '$lib/contracts.ts';
import { t } from '$lib/i18n.svelte.ts';

export function moduleName(module: ModuleKey, edition: Edition): string {
  if (module === 'basic') return t('module.basic');
  return t(edition === 'A' ? 'module.advanced.A' : 'module.advanced.B');
}
