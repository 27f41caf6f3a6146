/**
 * Audit trail (issue 19, item 2): every API call that changes something (POST, PUT, PATCH, DELETE,
 * less the searches and previews that only use POST for their input) becomes one record of the
 * `audit` log: who (account id, name, role), when, from where (client address, user agent), what
 * (method, route pattern, operation, object kind and id), the outcome (status, error code), and for
 * a successful change the object before and after with its changed fields. Secrets are masked by
 * field name (and PEM private keys by content) before anything is stored. Sign-in, sign-out and
 * failed sign-ins are records too. The console server's Fastify hooks feed it; the log store keeps
 * it (retention of the `audit` kind, a year by default).
 */
export { AuditTrail, AUDIT_LOG, AUDIT_INDEXED_FIELDS } from './audit-trail.ts';
export type { Actor, AuditEntry, AuditTrailDeps, CallStart, PendingCall } from './audit-trail.ts';
export { registerAuditHooks } from './fastify-hooks.ts';
export type { AuditHookOptions } from './fastify-hooks.ts';
export { maskSecrets, isSecretField, MASK, SECRET_FIELD_NAMES, MAX_STRING } from './masking.ts';
export { QUERY_OPERATIONS, SUBJECTS, SUBJECT_KINDS, isAudited } from './operations.ts';
export type { SubjectKind, SubjectSpec } from './operations.ts';
export { changedFields } from './subjects.ts';
export type { SubjectSources } from './subjects.ts';
