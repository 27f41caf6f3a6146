import { describe, expect, it } from 'vitest';
import { AuditTrail, MASK, changedFields, isAudited, type AuditEntry, type CallStart } from '#engine/audit';
import type { ConfigDocument } from '#engine/config-store';
import { ManualClock } from '#engine/shared';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A trail over a configuration the test changes by hand, and the records it appends. */
function trailOver(doc: Partial<ConfigDocument>): { trail: AuditTrail; records: AuditEntry[]; clock: ManualClock } {
  const records: AuditEntry[] = [];
  const clock = new ManualClock(1_000_000);
  const trail = new AuditTrail({
    append: (_log, record) => records.push(record),
    config: () => doc as ConfigDocument,
    ban: () => undefined,
    clock,
    logger: silent,
  });
  return { trail, records, clock };
}

const start = (operationId: string, over: Partial<CallStart> = {}): CallStart => ({
  operationId,
  method: 'PUT',
  route: '/api/v1/x',
  params: {},
  ip: '10.0.0.9',
  userAgent: 'test',
  actor: { id: 'acc_admin', name: 'admin@example.com', role: 'administrator' },
  ...over,
});

describe('AuditTrail', () => {
  it('records a rotated Access Key as changed, with both values masked', () => {
    const doc: Partial<ConfigDocument> = {
      siteGlobal: {
        tokenCookieName: 't',
        identityCookieName: 'i',
        tokenExpirySeconds: 60,
        accessKey: 'old-key',
        ipLock: false,
      },
    };
    const { trail, records } = trailOver(doc);
    const call = trail.begin(start('rotateAccessKey', { method: 'POST' }));
    trail.beforeHandler(call, {});
    doc.siteGlobal = { ...doc.siteGlobal!, accessKey: 'new-key' };
    trail.finish(call, 200, {});
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({
      account_id: 'acc_admin',
      action: 'rotateAccessKey',
      resource_kind: 'siteGlobal',
      outcome: 'success',
      before: { accessKey: MASK },
      after: { accessKey: MASK },
      changed_fields: ['accessKey'],
    });
    expect(JSON.stringify(record)).not.toMatch(/old-key|new-key/);
  });

  it('keeps neither before nor after of a refused call, only its status and error code', () => {
    const { trail, records } = trailOver({ sites: [] });
    const call = trail.begin(start('updateSite', { params: { id: 'site_1' } }));
    trail.beforeHandler(call, {});
    trail.finish(call, 404, { error: { code: 'NOT_FOUND', message: 'no such site' } });
    expect(records[0]).toMatchObject({
      resource_id: 'site_1',
      status: 404,
      outcome: 'failure',
      error_code: 'NOT_FOUND',
    });
    expect(records[0]).not.toHaveProperty('before');
    expect(records[0]).not.toHaveProperty('after');
  });

  it('names a failed sign-in by the e-mail tried, and a successful one by the account it signed in to', () => {
    const { trail, records } = trailOver({});
    const failed = trail.begin(start('signIn', { method: 'POST', actor: undefined }));
    trail.beforeHandler(failed, { email: 'who@example.com', password: 'Guess#1234' });
    trail.finish(failed, 401, { error: { code: 'INVALID_CREDENTIALS' } });
    const ok = trail.begin(start('signIn', { method: 'POST', actor: undefined }));
    trail.beforeHandler(ok, { email: 'who@example.com', password: 'Right#1234' });
    trail.finish(ok, 200, { account: { id: 'acc_7', email: 'who@example.com', role: 'user' }, csrfToken: 'c' });
    expect(records[0]).toMatchObject({ account_id: '', account: 'who@example.com', outcome: 'failure' });
    expect(records[1]).toMatchObject({ account_id: 'acc_7', account: 'who@example.com', account_role: 'user' });
    expect(JSON.stringify(records)).not.toContain('Guess#1234');
  });

  it('finds a created object by the id in the answer, and stamps the call with its arrival time', () => {
    const doc: Partial<ConfigDocument> = { rules: [] };
    const { trail, records, clock } = trailOver(doc);
    const call = trail.begin(start('createRule', { method: 'POST' }));
    trail.beforeHandler(call, {});
    clock.advance(25);
    doc.rules = [{ id: 'rule_1', name: 'R' } as unknown as NonNullable<ConfigDocument['rules']>[number]];
    trail.finish(call, 201, { id: 'rule_1' });
    expect(records[0]).toMatchObject({
      _timestamp: 1_000_000,
      duration_ms: 25,
      resource_id: 'rule_1',
      after: { name: 'R' },
    });
    expect(records[0]).not.toHaveProperty('before');
  });
});

describe('changedFields', () => {
  it('lists the dotted paths of changed leaves, lists compared whole', () => {
    expect(
      changedFields(
        { name: 'a', antiBot: { enabled: false, scanner: true }, paths: ['/'] },
        { name: 'a', antiBot: { enabled: true, scanner: true }, paths: ['/', '/x'], added: 1 },
      ),
    ).toEqual(['antiBot.enabled', 'paths', 'added']);
  });
});

describe('isAudited', () => {
  it('follows changing methods, not reads nor searches sent with POST', () => {
    expect(isAudited('PUT', 'updateSite')).toBe(true);
    expect(isAudited('POST', 'signIn')).toBe(true);
    expect(isAudited('POST', 'someFutureOperation')).toBe(true);
    expect(isAudited('GET', 'listSites')).toBe(false);
    expect(isAudited('POST', 'searchLogs')).toBe(false);
  });
});
