import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  createCustomRule,
  deleteCustomRule,
  downloadRuleSet,
  getBasicRules,
  getRuleSet,
  listBasicRuleGroupRules,
  listCustomRules,
  setRuleSetDir,
  updateBasicRuleGroup,
  updateCustomRule,
  uploadRuleSet,
} from '../schemas.ts';

export function basicRuleRoutes(deps: ApiDeps): AnyRoute[] {
  const { basicRules, ruleSets } = deps;
  return [
    bindRoute(getRuleSet, () => ruleSets.status()),
    bindRoute(setRuleSetDir, ({ body }) => ruleSets.useDir(body.dir)),
    bindRoute(uploadRuleSet, ({ body }) => ruleSets.upload(body.fileName, Buffer.from(body.contentBase64, 'base64'))),
    // The job is accepted and runs on: 202, with progress and outcome in GET /rule-set.
    bindRoute(downloadRuleSet, ({ body }) => ruleSets.download(body.version)),
    bindRoute(getBasicRules, ({ params }) => ({ groups: basicRules.groups(params.id) })),
    bindRoute(updateBasicRuleGroup, ({ params, body }) => basicRules.setGroup(params.id, params.group, body)),
    bindRoute(listBasicRuleGroupRules, ({ params }) => ({ items: basicRules.groupRules(params.id, params.group) })),
    bindRoute(listCustomRules, ({ params }) => ({ items: basicRules.customRules(params.id) })),
    bindRoute(createCustomRule, ({ params, body }) => basicRules.createCustomRule(params.id, body)),
    bindRoute(updateCustomRule, ({ params, body }) => basicRules.updateCustomRule(params.id, params.ruleId, body)),
    bindRoute(deleteCustomRule, ({ params }) => basicRules.deleteCustomRule(params.id, params.ruleId)),
  ];
}
