/**
 * Whether the engine runs without a Core Rule Set, for the warnings on the home, sites and rules
 * pages. Only roles that manage rules may read the rule set; for the others, and when the engine
 * cannot be asked, no warning is shown (the pages carry on).
 */
import { call, session } from '$lib/app.ts';
import { getRuleSet } from '$lib/contracts.ts';

export async function ruleSetMissing(): Promise<boolean> {
  const role = session.view?.account.role;
  if (role !== 'administrator' && role !== 'user') return false;
  try {
    return (await call(getRuleSet)).state === 'missing';
  } catch {
    return false;
  }
}
