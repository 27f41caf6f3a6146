import { z } from 'zod';
import { customRuleInputSchema, groupSettingSchema, protectionLevelSchema } from '#engine/shared';
import { defineContract } from './contract.ts';
import { idParams, LIMITS } from './common.schema.ts';

/** Spec 5.2: administrators and users manage rules (and sites, which rules belong to). */
const MANAGERS = ['administrator', 'user'] as const;

/** The largest rule-set archive an upload takes. */
export const MAX_RULE_SET_ARCHIVE_BYTES = 20 * 1024 * 1024;
const MAX_ARCHIVE_BASE64 = Math.ceil(MAX_RULE_SET_ARCHIVE_BYTES / 3) * 4;

/** The basic rules' input shapes (engine/shared/rule-shape.ts), also the console forms' schemas. */
export { customRuleInputSchema, groupSettingSchema };

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
  enabled: z.boolean(),
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
