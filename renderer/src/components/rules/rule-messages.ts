/**
 * The messages of Core Rule Set rules named by id, as the site's group lists give them: the engine
 * has no lookup by id, but a CRS rule's id starts with its file's number, so only the groups of
 * those files are read. A rule not found is left out: its id alone still names it.
 */
import { call } from '$lib/app.ts';
import { getBasicRules, listBasicRuleGroupRules } from '$lib/contracts.ts';

export async function ruleMessages(siteId: string, ids: readonly number[]): Promise<Record<number, string>> {
  const { groups } = await call(getBasicRules, { params: { id: siteId } });
  const wanted = new Set(ids.map((id) => Math.floor(id / 1000)));
  const lists = await Promise.all(
    groups
      .filter((g) => wanted.has(g.file))
      .map((g) => call(listBasicRuleGroupRules, { params: { id: siteId, group: g.id } })),
  );
  const found: Record<number, string> = {};
  for (const rule of lists.flatMap((l) => l.items)) if (ids.includes(rule.id)) found[rule.id] = rule.message;
  return found;
}
