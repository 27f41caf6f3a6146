/**
 * Which API operations are audited and what each one changes. Every operation with a state-changing
 * method (POST, PUT, PATCH, DELETE) is audited, unless QUERY_OPERATIONS names it: those take POST
 * only because their input is large (a search's filter tree, a log sample) and change nothing.
 * An operation missing from SUBJECTS is still audited, without before and after.
 */

/** The configuration objects an operation can change (their before and after are recorded). */
export const SUBJECT_KINDS = [
  'account',
  'site',
  'siteGlobal',
  'gateway',
  'licence',
  'ruleSet',
  'basicRuleGroup',
  'customRule',
  'wafExclusion',
  'contentTypes',
  'secondOpinion',
  'storage',
  'logConfig',
  'event',
  'rule',
  'ban',
  'ipLists',
  'adminSettings',
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/**
 * Where the changed object's id comes from: a path parameter, the caller's own account, the
 * answer (a created object's id, by dotted path), or nowhere (a singleton such as the Access Key's
 * global configuration).
 */
export type SubjectId =
  | { from: 'param'; name: string }
  | { from: 'caller' }
  | { from: 'response'; path: string }
  | { from: 'link' }
  | { from: 'none' };

export interface SubjectSpec {
  kind: SubjectKind;
  id: SubjectId;
  /** For objects kept per site (basic rule groups, custom rules): the path parameter naming the site. */
  siteParam?: string;
}

/** POST operations that read: searches, previews, checks, dry runs. Not audited. */
export const QUERY_OPERATIONS: ReadonlySet<string> = new Set([
  'inspectLink',
  'testSiteConnection',
  'searchLogs',
  'logHistogram',
  'logFields',
  'previewLogConfig',
  'guessLogConfigFields',
  'checkEvent',
  'eventCandidateFields',
  'explainEvent',
  'dryRunEvent',
  'proposeWafExclusions',
  'previewWafExclusion',
  'suggestWafExclusions',
]);

const param = (name = 'id'): SubjectId => ({ from: 'param', name });
const created = (path = 'id'): SubjectId => ({ from: 'response', path });
const single: SubjectId = { from: 'none' };

/** The object each changing operation works on. */
export const SUBJECTS: Readonly<Record<string, SubjectSpec>> = {
  completeSetup: { kind: 'account', id: created('account.id') },
  // An e-mailed link: the account it belongs to (its token is read to find it, never stored).
  completeLink: { kind: 'account', id: { from: 'link' } },
  changeMyPassword: { kind: 'account', id: { from: 'caller' } },
  createAccount: { kind: 'account', id: created('account.id') },
  deleteAccount: { kind: 'account', id: param() },
  disableAccount: { kind: 'account', id: param() },
  enableAccount: { kind: 'account', id: param() },
  changeAccountRole: { kind: 'account', id: param() },
  resendActivationEmail: { kind: 'account', id: param() },
  resetAccountPassword: { kind: 'account', id: param() },
  startTwoFactor: { kind: 'account', id: { from: 'caller' } },
  confirmTwoFactor: { kind: 'account', id: { from: 'caller' } },
  disableTwoFactor: { kind: 'account', id: { from: 'caller' } },
  regenerateRecoveryCodes: { kind: 'account', id: { from: 'caller' } },
  resetAccountTwoFactor: { kind: 'account', id: param() },
  importLicence: { kind: 'licence', id: single },
  createSite: { kind: 'site', id: created() },
  copySite: { kind: 'site', id: created() },
  updateSite: { kind: 'site', id: param() },
  updateSiteAntiBot: { kind: 'site', id: param() },
  deleteSite: { kind: 'site', id: param() },
  setSiteCertificate: { kind: 'site', id: param() },
  deleteSiteCertificate: { kind: 'site', id: param() },
  updateSiteGlobal: { kind: 'siteGlobal', id: single },
  rotateAccessKey: { kind: 'siteGlobal', id: single },
  setGatewayAddress: { kind: 'gateway', id: single },
  setRuleSetDir: { kind: 'ruleSet', id: single },
  uploadRuleSet: { kind: 'ruleSet', id: single },
  downloadRuleSet: { kind: 'ruleSet', id: single },
  updateBasicRuleGroup: { kind: 'basicRuleGroup', id: param('group'), siteParam: 'id' },
  createCustomRule: { kind: 'customRule', id: created(), siteParam: 'id' },
  updateCustomRule: { kind: 'customRule', id: param('ruleId'), siteParam: 'id' },
  deleteCustomRule: { kind: 'customRule', id: param('ruleId'), siteParam: 'id' },
  createWafExclusion: { kind: 'wafExclusion', id: created(), siteParam: 'id' },
  deleteWafExclusion: { kind: 'wafExclusion', id: param('exclusionId'), siteParam: 'id' },
  setContentTypes: { kind: 'contentTypes', id: single, siteParam: 'id' },
  setSecondOpinion: { kind: 'secondOpinion', id: single, siteParam: 'id' },
  updateStorage: { kind: 'storage', id: single },
  createLogConfig: { kind: 'logConfig', id: created() },
  copyLogConfig: { kind: 'logConfig', id: created() },
  updateLogConfig: { kind: 'logConfig', id: param() },
  deleteLogConfig: { kind: 'logConfig', id: param() },
  regenerateLogConfigCertificate: { kind: 'logConfig', id: param() },
  createEvent: { kind: 'event', id: created() },
  copyEvent: { kind: 'event', id: created() },
  updateEvent: { kind: 'event', id: param() },
  deleteEvent: { kind: 'event', id: param() },
  setEventEnabled: { kind: 'event', id: param() },
  createRule: { kind: 'rule', id: created() },
  copyRule: { kind: 'rule', id: created() },
  updateRule: { kind: 'rule', id: param() },
  deleteRule: { kind: 'rule', id: param() },
  createBan: { kind: 'ban', id: created() },
  liftBan: { kind: 'ban', id: param() },
  setIpLists: { kind: 'ipLists', id: single },
  // The System page's administration settings: the whole block, its SMTP password masked.
  updateSmtpSettings: { kind: 'adminSettings', id: single },
  resetSmtpSettings: { kind: 'adminSettings', id: single },
  updateSessionSettings: { kind: 'adminSettings', id: single },
  resetSessionSettings: { kind: 'adminSettings', id: single },
  updatePortSettings: { kind: 'adminSettings', id: single },
  updateTwoFactorPolicy: { kind: 'adminSettings', id: single },
};

/**
 * Body fields that name what an operation works on (the log exported or purged, the e-mail a sign-in
 * tried, the token of an e-mailed link, which is only looked up). Only these are read from a body;
 * a body is never stored.
 */
export const RESOURCE_FROM_BODY: Readonly<Record<string, string>> = {
  exportLogs: 'log',
  purgeLogs: 'log',
  signIn: 'email',
  completeLink: 'token',
  sendTestMail: 'to',
};

const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a call of this operation is recorded. */
export function isAudited(method: string, operationId: string): boolean {
  return STATE_CHANGING.has(method) && !QUERY_OPERATIONS.has(operationId);
}
