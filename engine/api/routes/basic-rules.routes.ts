import { previewExclusion, suggestExclusions, SUGGESTION_THRESHOLDS } from '#engine/basic-rules';
import { RampartError, type TimeRange } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  createCustomRule,
  createWafExclusion,
  deleteCustomRule,
  deleteWafExclusion,
  downloadRuleSet,
  getBasicRules,
  getContentTypes,
  getRuleSet,
  getSecondOpinion,
  listBasicRuleGroupRules,
  listCustomRules,
  listWafExclusions,
  previewWafExclusion,
  proposeWafExclusions,
  setContentTypes,
  setRuleSetDir,
  setSecondOpinion,
  suggestWafExclusions,
  updateBasicRuleGroup,
  updateCustomRule,
  uploadRuleSet,
} from '../schemas.ts';

/** How long, and over how many records, an exclusion's preview counts before it says it is partial. */
const PREVIEW_BUDGET = { ms: 15_000, records: 500_000 };

export function basicRuleRoutes(deps: ApiDeps): AnyRoute[] {
  const { basicRules, ruleSets } = deps;

  /**
   * A site's stored access records that match `query` in a range, newest first, read within
   * PREVIEW_BUDGET; `partial()` tells afterwards whether the budget cut the reading short.
   */
  async function storedFirings(siteId: string, range: TimeRange, query: string) {
    const q = { log: `access:${siteId}`, range, query };
    const { from, to } = await deps.search.resolve(q);
    const started = performance.now();
    let read = 0;
    const rows = deps.search.each({ ...q, max: PREVIEW_BUDGET.records, budget: PREVIEW_BUDGET });
    const records = (async function* () {
      for await (const row of rows) {
        read++;
        yield row;
      }
    })();
    const partial = (): boolean => read >= PREVIEW_BUDGET.records || performance.now() - started >= PREVIEW_BUDGET.ms;
    return { records, partial, range: { from, to } };
  }

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
    bindRoute(listWafExclusions, ({ params }) => ({ items: basicRules.exclusions(params.id) })),
    bindRoute(createWafExclusion, ({ params, body, caller }) =>
      basicRules.createExclusion(params.id, body, caller?.account.email ?? ''),
    ),
    bindRoute(deleteWafExclusion, ({ params }) => basicRules.deleteExclusion(params.id, params.exclusionId)),
    bindRoute(proposeWafExclusions, async ({ params, body }) => {
      const { log, record } = await deps.search.record(body.recordId, 0);
      if (log !== `access:${params.id}`) {
        throw new RampartError(
          'VALIDATION_FAILED',
          `recordId: the record is not an access record of site ${params.id}`,
          {
            field: 'recordId',
          },
        );
      }
      return {
        items: basicRules.proposeExclusions(params.id, record),
        request: typeof record.request === 'string' ? record.request : '',
      };
    }),
    bindRoute(previewWafExclusion, async ({ params, body }) => {
      const read = await storedFirings(params.id, body.range, `waf_triggered_rules:${body.ruleId}`);
      const preview = await previewExclusion(body, basicRules.exclusionSpecs(params.id), read.records);
      return { ...preview, partial: read.partial(), range: read.range };
    }),
    bindRoute(suggestWafExclusions, async ({ params, body }) => {
      const read = await storedFirings(params.id, body.range, 'waf_triggered_rules:*');
      const { examined, items } = await suggestExclusions(basicRules.exclusionSpecs(params.id), read.records);
      return { items, examined, partial: read.partial(), thresholds: { ...SUGGESTION_THRESHOLDS }, range: read.range };
    }),
    bindRoute(getContentTypes, ({ params }) => basicRules.contentTypes(params.id)),
    bindRoute(setContentTypes, ({ params, body }) => basicRules.setContentTypes(params.id, body)),
    bindRoute(getSecondOpinion, ({ params }) => basicRules.secondOpinion(params.id)),
    bindRoute(setSecondOpinion, ({ params, body }) => basicRules.setSecondOpinion(params.id, body)),
  ];
}
