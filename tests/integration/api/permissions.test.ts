import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bindRoute, type AnyRoute } from '#engine/api';
import { defineContract } from '../../../engine/api/contracts/index.ts';
import { ManualClock, DAY } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { TestSmtpServer } from '../../support/smtp.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';
type Caller = 'anonymous' | 'guest' | 'user' | 'administrator';
type Access = 'public' | 'signedIn' | 'administrator' | 'manager' | 'logReader';

/**
 * The declared permission table: every API operation and who may call it. A route added without
 * an entry here fails this test, and so does an entry without a route.
 */
const TABLE: Record<string, Access> = {
  getHealth: 'public',
  getSetupStatus: 'public',
  completeSetup: 'public',
  signIn: 'public',
  getSession: 'signedIn',
  signOut: 'signedIn',
  inspectLink: 'public',
  completeLink: 'public',
  getSystemVersion: 'signedIn',
  getSystemMetrics: 'administrator',
  getSmtpSettings: 'administrator',
  updateSmtpSettings: 'administrator',
  resetSmtpSettings: 'administrator',
  sendTestMail: 'administrator',
  getSessionSettings: 'administrator',
  updateSessionSettings: 'administrator',
  resetSessionSettings: 'administrator',
  getPortSettings: 'administrator',
  updatePortSettings: 'administrator',
  getTwoFactorPolicy: 'administrator',
  updateTwoFactorPolicy: 'administrator',
  getMyAccount: 'signedIn',
  changeMyPassword: 'signedIn',
  listAccounts: 'administrator',
  createAccount: 'administrator',
  getAccount: 'administrator',
  resendActivationEmail: 'administrator',
  disableAccount: 'administrator',
  enableAccount: 'administrator',
  changeAccountRole: 'administrator',
  resetAccountPassword: 'administrator',
  deleteAccount: 'administrator',
  signInSecondFactor: 'public',
  getMyTwoFactor: 'signedIn',
  startTwoFactor: 'signedIn',
  confirmTwoFactor: 'signedIn',
  disableTwoFactor: 'signedIn',
  regenerateRecoveryCodes: 'signedIn',
  resetAccountTwoFactor: 'administrator',
  getLicence: 'administrator',
  importLicence: 'administrator',
  listPurchases: 'administrator',
  renewPurchase: 'administrator',
  listSites: 'manager',
  createSite: 'manager',
  getSite: 'manager',
  updateSite: 'manager',
  copySite: 'manager',
  deleteSite: 'manager',
  setSiteCertificate: 'manager',
  deleteSiteCertificate: 'manager',
  getProxyStatus: 'manager',
  getSiteGlobal: 'manager',
  downloadSitePlugin: 'manager',
  downloadMiniProgramSdk: 'manager',
  updateSiteAntiBot: 'manager',
  updateSiteGlobal: 'manager',
  rotateAccessKey: 'administrator',
  revealAccessKey: 'administrator',
  testSiteConnection: 'manager',
  getGatewayAddress: 'manager',
  setGatewayAddress: 'administrator',
  getRuleSet: 'manager',
  setRuleSetDir: 'manager',
  uploadRuleSet: 'manager',
  downloadRuleSet: 'manager',
  getBasicRules: 'manager',
  updateBasicRuleGroup: 'manager',
  listBasicRuleGroupRules: 'manager',
  listCustomRules: 'manager',
  createCustomRule: 'manager',
  updateCustomRule: 'manager',
  deleteCustomRule: 'manager',
  listWafExclusions: 'manager',
  createWafExclusion: 'manager',
  deleteWafExclusion: 'manager',
  proposeWafExclusions: 'manager',
  previewWafExclusion: 'manager',
  suggestWafExclusions: 'manager',
  getContentTypes: 'manager',
  setContentTypes: 'manager',
  getSecondOpinion: 'manager',
  setSecondOpinion: 'manager',
  listLogs: 'logReader',
  searchLogs: 'logReader',
  logHistogram: 'logReader',
  logFields: 'logReader',
  getLogRecord: 'logReader',
  exportLogs: 'logReader',
  tailLogs: 'logReader',
  getStorage: 'administrator',
  updateStorage: 'administrator',
  purgeLogs: 'administrator',
  listLogConfigs: 'manager',
  getLogConfig: 'manager',
  createLogConfig: 'manager',
  updateLogConfig: 'manager',
  deleteLogConfig: 'manager',
  copyLogConfig: 'manager',
  regenerateLogConfigCertificate: 'manager',
  downloadLogConfigCertificate: 'manager',
  getLogConfigStatus: 'manager',
  previewLogConfig: 'manager',
  guessLogConfigFields: 'manager',
  listEvents: 'manager',
  getEvent: 'manager',
  createEvent: 'manager',
  updateEvent: 'manager',
  deleteEvent: 'manager',
  copyEvent: 'manager',
  setEventEnabled: 'manager',
  checkEvent: 'manager',
  eventCandidateFields: 'manager',
  explainEvent: 'manager',
  dryRunEvent: 'manager',
  listRules: 'manager',
  getRule: 'manager',
  createRule: 'manager',
  updateRule: 'manager',
  deleteRule: 'manager',
  copyRule: 'manager',
  listBans: 'manager',
  createBan: 'manager',
  liftBan: 'manager',
  getIpLists: 'manager',
  setIpLists: 'manager',
  overviewSummary: 'signedIn',
  overviewDistribution: 'signedIn',
  overviewTrend: 'signedIn',
  overviewRanking: 'signedIn',
  overviewSites: 'signedIn',
  downloadBackup: 'administrator',
  stageRestore: 'administrator',
  getConsoleCertificate: 'signedIn',
  setConsoleCertificate: 'administrator',
  resetConsoleCertificate: 'administrator',
  downloadConsoleCa: 'signedIn',
};

function expectedRefusal(access: Access, caller: Caller): 401 | 403 | null {
  if (access === 'public') return null;
  if (caller === 'anonymous') return 401;
  if (access === 'administrator' && caller !== 'administrator') return 403;
  if (access === 'manager' && caller === 'guest') return 403;
  // Spec 5.2: log management is for administrators and guests, not users.
  if (access === 'logReader' && caller === 'user') return 403;
  return null;
}

/** A module-gated probe route, standing in for the licensed pages that later work adds. */
const gated: AnyRoute = bindRoute(
  defineContract({
    method: 'GET',
    path: '/test/gated',
    operationId: 'testGated',
    summary: 'test only',
    tag: 'test',
    access: 'signedIn',
    module: 'advanced',
    response: z.object({ ok: z.boolean() }),
  }),
  () => ({ ok: true }),
);

let engine: TestEngine;
let smtp: TestSmtpServer;
const clock = new ManualClock(Date.now());

async function signedIn(caller: Caller): Promise<ApiClient> {
  const client = new ApiClient(engine.url);
  if (caller !== 'anonymous') {
    const res = await client.signIn(`${caller}@example.com`, PASSWORD);
    expect(res.status, `sign-in as ${caller}`).toBe(200);
  }
  return client;
}

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  engine = await startTestEngine(smtp.env(), { clock, extraRoutes: [gated] });
  const admin = new ApiClient(engine.url);
  await admin.setup('administrator@example.com', PASSWORD);
  for (const role of ['user', 'guest'] as const) {
    const created = await admin.request('POST', '/accounts', { email: `${role}@example.com`, role });
    expect(created.status).toBe(201);
    const token = new URL(TestSmtpServer.linkIn(await smtp.waitFor(`${role}@example.com`))).searchParams.get('token');
    expect(
      (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: PASSWORD })).status,
    ).toBe(204);
  }
});

afterAll(async () => {
  await engine?.dispose();
  await smtp?.stop();
});

interface Operation {
  operationId: string;
  method: string;
  path: string;
}

async function operations(): Promise<Operation[]> {
  const doc = (
    await new ApiClient(engine.url).request<{ paths: Record<string, Record<string, { operationId: string }>> }>(
      'GET',
      '/openapi.json',
    )
  ).body;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      operationId: op.operationId,
      method: method.toUpperCase(),
      path: path.replace(/^\/api\/v1/, '').replace(/\{[^}]+\}/g, 'acc_doesnotexist'),
    })),
  );
}

const CALLERS: Caller[] = ['anonymous', 'guest', 'user', 'administrator'];

describe('permission matrix', () => {
  it('has one declared entry for every API operation', async () => {
    const ids = (await operations())
      .map((o) => o.operationId)
      .filter((id) => id !== 'getOpenApi' && id !== 'testGated');
    expect(ids.toSorted()).toEqual(Object.keys(TABLE).toSorted());
  });

  for (const caller of CALLERS) {
    it(`answers ${caller} as the table says on every route`, async () => {
      const mismatches: string[] = [];
      for (const op of await operations()) {
        const access = TABLE[op.operationId];
        if (!access) continue;
        const client = await signedIn(caller);
        const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
        const res = await client.request<{ error?: { code: string } }>(op.method, op.path, body);
        const refusal = expectedRefusal(access, caller);
        const code = res.body?.error?.code;
        const ok =
          refusal === 401
            ? res.status === 401 && code === 'UNAUTHENTICATED'
            : refusal === 403
              ? res.status === 403 && code === 'FORBIDDEN_ROLE'
              : res.status !== 401 && !(res.status === 403 && (code === 'FORBIDDEN_ROLE' || code === 'CSRF_INVALID'));
        if (!ok)
          mismatches.push(
            `${op.operationId} ${op.method} ${op.path}: expected ${refusal ?? 'allowed'}, got ${res.status} ${code ?? ''}`,
          );
        if (res.status >= 500) mismatches.push(`${op.operationId}: server error ${res.status} ${res.text}`);
      }
      expect(mismatches).toEqual([]);
    });
  }

  it('refuses writes without the CSRF token of the session', async () => {
    const admin = await signedIn('administrator');
    const res = await admin.request('POST', '/accounts', { email: 'x@example.com', role: 'guest' }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'CSRF_INVALID' } });
    admin.csrf = 'forged';
    expect((await admin.request('DELETE', '/session')).status).toBe(403);
  });
});

describe('licence gating', () => {
  it('serves a module-gated route while the module is activated', async () => {
    const user = await signedIn('user');
    expect((await user.request('GET', '/test/gated')).status).toBe(200);
  });

  it('refuses every module-gated route, naming the module, once the licence has expired', async () => {
    const gatedOps = (await operations()).filter((o) => o.operationId === 'testGated');
    expect(gatedOps).toHaveLength(1);
    clock.advance(31 * DAY);
    try {
      const admin = await signedIn('administrator');
      for (const op of gatedOps) {
        const res = await admin.request(op.method, op.path);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: { code: 'MODULE_NOT_ACTIVE', params: { module: 'advanced' } } });
      }
      const licence = await admin.request<{ modules: { state: string }[] }>('GET', '/licence');
      expect(licence.body.modules.map((m) => m.state)).toEqual(['expired', 'expired']);
      const session = await admin.request<{ navigation: { id: string }[] }>('GET', '/session');
      expect(session.body.navigation.map((m) => m.id)).toEqual(['overview', 'logs', 'config', 'enterprise']);
    } finally {
      clock.advance(-31 * DAY);
    }
  });
});
