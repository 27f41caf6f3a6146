import { z } from 'zod';
import {
  contentTypesInputSchema,
  customRuleInputSchema,
  groupSettingSchema,
  protectionLevelSchema,
  timeRangeSchema,
  wafExclusionInputSchema,
} from '#engine/shared';
import { defineContract } from './contract.ts';
import { idParams, LIMITS } from './common.schema.ts';

/** Spec 5.2: administrators and users manage rules (and sites, which rules belong to). */
const MANAGERS = ['administrator', 'user'] as const;

/** The largest rule-set archive an upload takes. */
export const MAX_RULE_SET_ARCHIVE_BYTES = 20 * 1024 * 1024;
const MAX_ARCHIVE_BASE64 = Math.ceil(MAX_RULE_SET_ARCHIVE_BYTES / 3) * 4;

/** The basic rules' input shapes (engine/shared/rule-shape.ts), also the console forms' schemas. */
export { customRuleInputSchema, groupSettingSchema, wafExclusionInputSchema, contentTypesInputSchema };

export const RULE_SET_DOWNLOAD_FAILURES = [
  'unreachable',
  'untrusted',
  'http_status',
  'too_large',
  'truncated',
  'hash_mismatch',
  'bad_url',
  'refused',
] as const;

export const ruleSetDownloadJob = z.object({
  version: z.string(),
  url: z.string().describe('where the archive is fetched from (any user:password part left out)'),
  state: z.enum(['downloading', 'installing', 'installed', 'failed']),
  receivedBytes: z.number(),
  totalBytes: z.number().nullable(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
  failure: z
    .object({
      code: z.enum(RULE_SET_DOWNLOAD_FAILURES),
      message: z.string(),
      params: z.record(z.string(), z.union([z.string(), z.number()])),
    })
    .nullable(),
});
export type RuleSetDownloadJobView = z.infer<typeof ruleSetDownloadJob>;

/**
 * What a rule-set problem is, for the console to word it: `code` (unknown_operator, include_missing,
 * archive_corrupt, no_rules_folder, ...) and its parameters; `message` is the engine's English.
 */
const ruleSetProblemCode = {
  code: z.string().optional().describe('what the problem is (a parse, load or archive code)'),
  params: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .optional()
    .describe("the problem's parameters (operator, variable, path, count, ...)"),
};

export const ruleSetStatus = z.object({
  state: z.enum(['loaded', 'missing']),
  source: z.enum(['configured', 'detected', 'uploaded']).nullable(),
  dir: z.string().nullable(),
  configuredDir: z.string().nullable(),
  version: z.string().nullable(),
  ruleCount: z.number(),
  loadedAt: z.number().nullable(),
  problems: z.array(z.object({ file: z.string(), line: z.number(), message: z.string(), ...ruleSetProblemCode })),
  lastError: z
    .object({
      message: z.string(),
      file: z.string().nullable(),
      line: z.number().nullable(),
      at: z.number(),
      ...ruleSetProblemCode,
    })
    .nullable(),
  download: ruleSetDownloadJob.nullable(),
});
export type RuleSetStatusView = z.infer<typeof ruleSetStatus>;

export const basicRuleGroupView = z.object({
  id: z.string(),
  name: z.string(),
  file: z.number().describe('the CRS rule file number'),
  enabled: z.boolean(),
  level: protectionLevelSchema,
  enabledRuleCount: z.number().describe("rules the group's level enables"),
  ruleCount: z.number().describe('rules of the group at all levels'),
});
export type BasicRuleGroupView = z.infer<typeof basicRuleGroupView>;

export const basicRuleView = z.object({
  id: z.number(),
  message: z.string(),
  level: z.number(),
  enabled: z.boolean().describe("the group's level enables it and no exclusion switched it off on every path"),
  switchedOff: z
    .object({ exclusionId: z.string(), reason: z.string() })
    .nullable()
    .describe('the exclusion that switched the rule off for the whole site'),
});
export type BasicRuleView = z.infer<typeof basicRuleView>;

export const customRuleView = z.object({
  id: z.string(),
  name: z.string(),
  remark: z.string(),
  enabled: z.boolean(),
  location: z.string(),
  conditions: z.array(z.object({ location: z.string(), name: z.string(), pattern: z.string() })),
  attackType: z.literal('custom'),
  direction: z.literal('request'),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type CustomRuleView = z.infer<typeof customRuleView>;

const groupParams = z.object({ id: z.string().min(1).max(LIMITS.id), group: z.string().min(1).max(8) }).strict();
const ruleParams = z
  .object({ id: z.string().min(1).max(LIMITS.id), ruleId: z.string().min(1).max(LIMITS.id) })
  .strict();

export const ruleSetUploadInput = z
  .object({
    fileName: z
      .string()
      .min(1, 'is required')
      .max(255)
      .regex(/\.(tar\.gz|tgz|zip)$/i, 'must be a .tar.gz, .tgz or .zip archive of a Core Rule Set release'),
    contentBase64: z
      .string()
      .min(1, 'is required')
      .max(MAX_ARCHIVE_BASE64, `must be at most ${MAX_RULE_SET_ARCHIVE_BYTES / 1024 / 1024} MB`)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
  })
  .strict();

export const getRuleSet = defineContract({
  method: 'GET',
  path: '/rule-set',
  operationId: 'getRuleSet',
  summary: 'The Core Rule Set the basic rules run: source, version, rule count, problems',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  response: ruleSetStatus,
});

export const setRuleSetDir = defineContract({
  method: 'PUT',
  path: '/rule-set',
  operationId: 'setRuleSetDir',
  summary: 'Run the rule set in a directory (null: auto-detect); a broken set is refused and the running one kept',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  body: z
    .object({ dir: z.string().trim().min(1, 'must not be empty (send null to auto-detect)').max(4096).nullable() })
    .strict(),
  response: ruleSetStatus,
});

export const uploadRuleSet = defineContract({
  method: 'POST',
  path: '/rule-set/upload',
  operationId: 'uploadRuleSet',
  summary: 'Install a Core Rule Set release archive (.tar.gz or .zip, base64) for air-gapped installs',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  bodyLimit: MAX_ARCHIVE_BASE64 + 4096,
  body: ruleSetUploadInput,
  response: ruleSetStatus,
});

export const downloadRuleSet = defineContract({
  method: 'POST',
  path: '/rule-set/download',
  operationId: 'downloadRuleSet',
  summary:
    "Fetch a CRS release's minimal archive from the configured address, check it against the SHA-256 pinned for its version and install it; the job runs on, with progress and outcome in GET /rule-set",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  body: z
    .object({ version: z.string().regex(/^\d{1,3}\.\d{1,3}\.\d{1,3}$/, 'must be a version such as 4.25.0') })
    .strict(),
  status: 202,
  response: ruleSetDownloadJob,
});

export const getBasicRules = defineContract({
  method: 'GET',
  path: '/sites/:id/basic-rules',
  operationId: 'getBasicRules',
  summary: "A site's 12 basic rule groups with their switches, protection levels and enabled rule counts",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  response: z.object({ groups: z.array(basicRuleGroupView) }),
});

export const updateBasicRuleGroup = defineContract({
  method: 'PUT',
  path: '/sites/:id/basic-rules/groups/:group',
  operationId: 'updateBasicRuleGroup',
  summary: 'Switch a rule group on or off and set its protection level',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: groupParams,
  body: groupSettingSchema,
  response: basicRuleGroupView,
});

export const listBasicRuleGroupRules = defineContract({
  method: 'GET',
  path: '/sites/:id/basic-rules/groups/:group/rules',
  operationId: 'listBasicRuleGroupRules',
  summary: "A group's rules: id, message, level, and whether the group's level enables it",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: groupParams,
  response: z.object({ items: z.array(basicRuleView) }),
});

export const listCustomRules = defineContract({
  method: 'GET',
  path: '/sites/:id/custom-rules',
  operationId: 'listCustomRules',
  summary: "A site's custom basic rules",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  response: z.object({ items: z.array(customRuleView) }),
});

export const createCustomRule = defineContract({
  method: 'POST',
  path: '/sites/:id/custom-rules',
  operationId: 'createCustomRule',
  summary: 'Add a custom basic rule (regexes over request locations)',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: customRuleInputSchema,
  status: 201,
  response: customRuleView,
});

export const updateCustomRule = defineContract({
  method: 'PUT',
  path: '/sites/:id/custom-rules/:ruleId',
  operationId: 'updateCustomRule',
  summary: 'Change a custom basic rule (also to enable or disable it)',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: ruleParams,
  body: customRuleInputSchema,
  response: customRuleView,
});

export const deleteCustomRule = defineContract({
  method: 'DELETE',
  path: '/sites/:id/custom-rules/:ruleId',
  operationId: 'deleteCustomRule',
  summary: 'Delete a custom basic rule',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: ruleParams,
  status: 204,
});

export const wafExclusionView = z.object({
  id: z.string(),
  ruleId: z.number(),
  target: z.string().describe("'' for the whole rule; else a request collection, optionally :name (ARGS:q)"),
  path: z.string().describe("'' for every path; /a exactly; /api/* a prefix"),
  reason: z.string(),
  createdBy: z.string().describe('the account (e-mail) that made it'),
  createdAt: z.number(),
  ruleMessage: z.string().nullable().describe("the rule's message in the running rule set (null: not in it)"),
});
export type WafExclusionView = z.infer<typeof wafExclusionView>;

const exclusionSpec = z.object({ ruleId: z.number(), target: z.string(), path: z.string() });

export const exclusionPreview = z.object({
  examined: z.number().describe('stored records of the site on which the rule fired, in the range'),
  matched: z.number().describe('of those, records where the exclusion covers a match of the rule'),
  cleared: z.number().describe('records on which every rule that fired is then excluded (they would have passed)'),
  clearedBlocked: z.number().describe('of the cleared records, those that were blocked'),
  partial: z.boolean().describe('the count stopped early (time or record limit): there may be more'),
  range: z.object({ from: z.number(), to: z.number() }),
});
export type ExclusionPreviewView = z.infer<typeof exclusionPreview>;

export const contentTypesView = z.object({
  types: z.array(z.string()),
  isDefault: z.boolean().describe("the site uses Rampart's default list"),
  defaults: z.array(z.string()).describe("Rampart's default list"),
});
export type ContentTypesView = z.infer<typeof contentTypesView>;

const exclusionParams = z
  .object({ id: z.string().min(1).max(LIMITS.id), exclusionId: z.string().min(1).max(LIMITS.id) })
  .strict();

export const listWafExclusions = defineContract({
  method: 'GET',
  path: '/sites/:id/waf-exclusions',
  operationId: 'listWafExclusions',
  summary: "A site's exclusions of Core Rule Set rules (whole rules or targets, per path), with their reasons",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  response: z.object({ items: z.array(wafExclusionView) }),
});

export const createWafExclusion = defineContract({
  method: 'POST',
  path: '/sites/:id/waf-exclusions',
  operationId: 'createWafExclusion',
  summary:
    'Exclude a Core Rule Set rule on a site: the whole rule or one target, on every path, one path or a prefix; the reason is kept',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: wafExclusionInputSchema,
  status: 201,
  response: wafExclusionView,
});

export const deleteWafExclusion = defineContract({
  method: 'DELETE',
  path: '/sites/:id/waf-exclusions/:exclusionId',
  operationId: 'deleteWafExclusion',
  summary: 'Remove an exclusion: the rule applies again from the next request',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: exclusionParams,
  status: 204,
});

export const proposeWafExclusions = defineContract({
  method: 'POST',
  path: '/sites/:id/waf-exclusions/proposals',
  operationId: 'proposeWafExclusions',
  summary:
    'From a stored access record of the site: the narrowest exclusions (rule, parameter, path) that would have let it through',
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: z.object({ recordId: z.string().min(1, 'is required').max(512) }).strict(),
  response: z.object({
    items: z.array(exclusionSpec.extend({ ruleMessage: z.string().nullable() })),
    request: z.string(),
  }),
});

export const previewWafExclusion = defineContract({
  method: 'POST',
  path: '/sites/:id/waf-exclusions/preview',
  operationId: 'previewWafExclusion',
  summary:
    "How many of the site's stored access records an exclusion would have let through (default: the last 7 days)",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: z
    .object({
      ruleId: wafExclusionInputSchema.shape.ruleId,
      target: wafExclusionInputSchema.shape.target,
      path: wafExclusionInputSchema.shape.path,
      range: timeRangeSchema.default({ last: '7d' }),
    })
    .strict(),
  response: exclusionPreview,
});

export const getContentTypes = defineContract({
  method: 'GET',
  path: '/sites/:id/basic-rules/content-types',
  operationId: 'getContentTypes',
  summary: "The request content types a site allows (CRS rule 920420's policy) and Rampart's default list",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  response: contentTypesView,
});

export const setContentTypes = defineContract({
  method: 'PUT',
  path: '/sites/:id/basic-rules/content-types',
  operationId: 'setContentTypes',
  summary: "Set the site's own list of allowed request content types (null: Rampart's default list)",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: contentTypesInputSchema,
  response: contentTypesView,
});

export const secondOpinionView = z
  .object({
    enabled: z
      .boolean()
      .describe(
        "whether an anomaly-score block of a level 2+ rule is looked at again (our SQL and HTML tokenizers, the browser probe, the client's blocks in the last hour) before it is blocked",
      ),
  })
  .strict();

export const getSecondOpinion = defineContract({
  method: 'GET',
  path: '/sites/:id/basic-rules/second-opinion',
  operationId: 'getSecondOpinion',
  summary: "Whether the site's anomaly-score blocks get a second opinion (off by default)",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  response: secondOpinionView,
});

export const setSecondOpinion = defineContract({
  method: 'PUT',
  path: '/sites/:id/basic-rules/second-opinion',
  operationId: 'setSecondOpinion',
  summary: "Switch the second opinion on the site's anomaly-score blocks on or off",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: secondOpinionView,
  response: secondOpinionView,
});

export const exclusionSuggestion = exclusionSpec.extend({
  requests: z.number().describe('stored requests the rule fired on there (not covered by an exclusion yet)'),
  clients: z.number().describe('distinct client addresses among them'),
  fromProbedBrowsers: z.number().describe('of the requests, those from browsers that had passed the probe'),
  lastSeen: z.number(),
  example: z.string().describe("one of the requests (its record's request line)"),
});
export type ExclusionSuggestionView = z.infer<typeof exclusionSuggestion>;

export const suggestWafExclusions = defineContract({
  method: 'POST',
  path: '/sites/:id/waf-exclusions/suggestions',
  operationId: 'suggestWafExclusions',
  summary:
    "Learned exclusions: rules that fired on the same parameter of the same path for many requests and clients in the site's stored access records (default: the last 7 days)",
  tag: 'rules',
  access: MANAGERS,
  module: 'basic',
  params: idParams,
  body: z.object({ range: timeRangeSchema.default({ last: '7d' }) }).strict(),
  response: z.object({
    items: z.array(exclusionSuggestion),
    examined: z.number().describe('stored records read (those on which a rule fired)'),
    partial: z.boolean().describe('the reading stopped early (time or record limit)'),
    thresholds: z.object({ requests: z.number(), clients: z.number() }),
    range: z.object({ from: z.number(), to: z.number() }),
  }),
});
