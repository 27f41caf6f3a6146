import { z } from 'zod';
import { customRuleInputSchema, groupSettingSchema } from '#engine/basic-rules';
import { defineRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { idParams } from '../schemas.ts';

/** Spec 5.2: administrators and users manage rules (and sites, which rules belong to). */
const MANAGERS = ['administrator', 'user'] as const;

const MAX_ARCHIVE_BYTES = 20 * 1024 * 1024;

const level = z.enum(['loose', 'normal', 'strict', 'very_strict']);

const downloadJob = z.object({
  version: z.string(),
  url: z.string(),
  state: z.enum(['downloading', 'installing', 'installed', 'failed']),
  receivedBytes: z.number(),
  totalBytes: z.number().nullable(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
  failure: z
    .object({
      code: z.enum([
        'unreachable',
        'untrusted',
        'http_status',
        'too_large',
        'truncated',
        'hash_mismatch',
        'bad_url',
        'refused',
      ]),
      message: z.string(),
      params: z.record(z.string(), z.union([z.string(), z.number()])),
    })
    .nullable(),
});

const ruleSetStatus = z.object({
  state: z.enum(['loaded', 'missing']),
  source: z.enum(['configured', 'detected', 'uploaded']).nullable(),
  dir: z.string().nullable(),
  configuredDir: z.string().nullable(),
  version: z.string().nullable(),
  ruleCount: z.number(),
  loadedAt: z.number().nullable(),
  problems: z.array(z.object({ file: z.string(), line: z.number(), message: z.string() })),
  lastError: z
    .object({ message: z.string(), file: z.string().nullable(), line: z.number().nullable(), at: z.number() })
    .nullable(),
  download: downloadJob.nullable(),
});

const groupView = z.object({
  id: z.string(),
  name: z.string(),
  file: z.number(),
  enabled: z.boolean(),
  level,
  enabledRuleCount: z.number(),
  ruleCount: z.number(),
});

const customRuleView = z.object({
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

const groupParams = z.object({ id: z.string().min(1).max(64), group: z.string().min(1).max(8) }).strict();
const ruleParams = z.object({ id: z.string().min(1).max(64), ruleId: z.string().min(1).max(64) }).strict();

const uploadInput = z
  .object({
    fileName: z
      .string()
      .min(1, 'is required')
      .max(255)
      .regex(/\.(tar\.gz|tgz|zip)$/i, 'must be a .tar.gz, .tgz or .zip archive of a Core Rule Set release'),
    contentBase64: z
      .string()
      .min(1, 'is required')
      .max(Math.ceil(MAX_ARCHIVE_BYTES / 3) * 4, `must be at most ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB`)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
  })
  .strict();

export function basicRuleRoutes(deps: ApiDeps): AnyRoute[] {
  const { basicRules, ruleSets } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/rule-set',
      operationId: 'getRuleSet',
      summary: 'The Core Rule Set the basic rules run: source, version, rule count, problems',
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      response: ruleSetStatus,
      handler: () => ruleSets.status(),
    }),
    defineRoute({
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
      handler: ({ body }) => ruleSets.useDir(body.dir),
    }),
    defineRoute({
      method: 'POST',
      path: '/rule-set/upload',
      operationId: 'uploadRuleSet',
      summary: 'Install a Core Rule Set release archive (.tar.gz or .zip, base64) for air-gapped installs',
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      bodyLimit: Math.ceil(MAX_ARCHIVE_BYTES / 3) * 4 + 4096,
      body: uploadInput,
      response: ruleSetStatus,
      handler: ({ body }) => ruleSets.upload(body.fileName, Buffer.from(body.contentBase64, 'base64')),
    }),
    defineRoute({
      method: 'POST',
      path: '/rule-set/download',
      operationId: 'downloadRuleSet',
      summary:
        "Fetch a CRS release's minimal archive from the configured address, check it against the SHA-256 pinned for its version and install it; progress and outcome in GET /rule-set",
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      body: z
        .object({ version: z.string().regex(/^\d{1,3}\.\d{1,3}\.\d{1,3}$/, 'must be a version such as 4.25.0') })
        .strict(),
      // The job is accepted and runs on (202 once the contracts' status type allows it; 200 until then).
      response: downloadJob,
      handler: ({ body }) => ruleSets.download(body.version),
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/basic-rules',
      operationId: 'getBasicRules',
      summary: "A site's 12 basic rule groups with their switches, protection levels and enabled rule counts",
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      params: idParams,
      response: z.object({ groups: z.array(groupView) }),
      handler: ({ params }) => ({ groups: basicRules.groups(params.id) }),
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/basic-rules/groups/:group',
      operationId: 'updateBasicRuleGroup',
      summary: 'Switch a rule group on or off and set its protection level',
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      params: groupParams,
      body: groupSettingSchema,
      response: groupView,
      handler: ({ params, body }) => basicRules.setGroup(params.id, params.group, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/basic-rules/groups/:group/rules',
      operationId: 'listBasicRuleGroupRules',
      summary: "A group's rules: id, message, level, and whether the group's level enables it",
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      params: groupParams,
      response: z.object({
        items: z.array(z.object({ id: z.number(), message: z.string(), level: z.number(), enabled: z.boolean() })),
      }),
      handler: ({ params }) => ({ items: basicRules.groupRules(params.id, params.group) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/custom-rules',
      operationId: 'listCustomRules',
      summary: "A site's custom basic rules",
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      params: idParams,
      response: z.object({ items: z.array(customRuleView) }),
      handler: ({ params }) => ({ items: basicRules.customRules(params.id) }),
    }),
    defineRoute({
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
      handler: ({ params, body }) => basicRules.createCustomRule(params.id, body),
    }),
    defineRoute({
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
      handler: ({ params, body }) => basicRules.updateCustomRule(params.id, params.ruleId, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id/custom-rules/:ruleId',
      operationId: 'deleteCustomRule',
      summary: 'Delete a custom basic rule',
      tag: 'rules',
      access: MANAGERS,
      module: 'basic',
      params: ruleParams,
      status: 204,
      handler: ({ params }) => basicRules.deleteCustomRule(params.id, params.ruleId),
    }),
  ];
}
