import type { Clock, Logger } from '#engine/shared';
import { maskSecrets } from './masking.ts';
import { RESOURCE_FROM_BODY, SUBJECTS, type SubjectSpec } from './operations.ts';
import { changedFields, readSubject, type SubjectRef, type SubjectSources } from './subjects.ts';

/** The log the trail is written to (its kind is `audit`). */
export const AUDIT_LOG = 'audit';

/** Fields of the audit log indexed besides the store's standard ones (account, src_ip and status are among those). */
export const AUDIT_INDEXED_FIELDS: readonly string[] = [
  'account_id',
  'action',
  'resource_kind',
  'resource_id',
  'outcome',
];

/** Who made a call: the signed-in account, or for a sign-in the account it signed in to. */
export interface Actor {
  id: string;
  /** The account name (its e-mail address, spec 2.6). */
  name: string;
  role: string;
}

/** One record of the audit log, as stored (snake_case like every log's fields). A type, so it is a log record. */
export type AuditEntry = {
  /** When the call arrived, epoch ms. */
  _timestamp: number;
  /** '' for a call by no one signed in (a sign-in, a first-run setup, an e-mailed link). */
  account_id: string;
  /** The account name; for a failed sign-in the name that was tried. */
  account: string;
  account_role: string;
  src_ip: string;
  user_agent: string;
  method: string;
  /** The route as declared, `/api/v1/sites/:id`. */
  route: string;
  /** The operation (its operationId: `updateSite`, `signIn`). */
  action: string;
  /** The kind of object changed (`site`, `account`, ...), or '' when it changes none. */
  resource_kind: string;
  /** Its id ('' for singletons), or what the call named (the log exported, the e-mail tried). */
  resource_id: string;
  /** The HTTP status of the answer. */
  status: number;
  outcome: 'success' | 'failure';
  /** The error code of a refused call (VALIDATION_FAILED, FORBIDDEN_ROLE, ...). */
  error_code?: string;
  duration_ms: number;
  /** The changed object before and after the call (successful calls only), secrets masked. */
  before?: unknown;
  after?: unknown;
  /** Dotted paths of what differs between before and after. */
  changed_fields?: string[];
};

/** What the trail knows of a call when it arrives. */
export interface CallStart {
  operationId: string;
  method: string;
  route: string;
  params: Readonly<Record<string, unknown>>;
  ip: string;
  userAgent: string;
  actor: Actor | undefined;
}

/** A call under way: what was known when it arrived, and the object before the handler ran. */
export interface PendingCall {
  readonly start: CallStart;
  readonly at: number;
  readonly spec: SubjectSpec | undefined;
  resource: string;
  attempted: string;
  /** The account of the e-mailed link the call uses (found before the link is spent). */
  linkAccount: string;
  /** Unmasked until the record is built (changed_fields compares the real values). */
  before: unknown;
}

export interface AuditTrailDeps extends SubjectSources {
  /** The log store's append. */
  append(log: string, record: AuditEntry): void;
  clock: Clock;
  logger: Logger;
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

function at(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A copy that later changes to the stored object cannot reach (the store publishes copies, a ban may change in place). */
const copy = (value: unknown): unknown => (value === undefined ? undefined : structuredClone(value));

/**
 * The audit trail: each audited API call becomes one record of the `audit` log. Framework-free:
 * the console server's hooks (fastify-hooks.ts) call `begin` when a call arrives, `beforeHandler`
 * once its body is parsed, and `finish` with the answer.
 */
export class AuditTrail {
  readonly #deps: AuditTrailDeps;

  constructor(deps: AuditTrailDeps) {
    this.#deps = deps;
  }

  begin(start: CallStart): PendingCall {
    // Without a subject, the call is about what its path names (`/licence/purchases/:orderNumber/renew`).
    const named = Object.values(start.params).find((value) => typeof value === 'string');
    return {
      start,
      at: this.#deps.clock.now(),
      spec: SUBJECTS[start.operationId],
      resource: typeof named === 'string' ? named.slice(0, 200) : '',
      attempted: '',
      linkAccount: '',
      before: undefined,
    };
  }

  /** Reads what the call is about to change (and what its body names, for the few operations that say so). */
  beforeHandler(call: PendingCall, body: unknown): void {
    const field = RESOURCE_FROM_BODY[call.start.operationId];
    if (field !== undefined) {
      const named = text(at(body, field)).slice(0, 254);
      if (call.start.operationId === 'signIn') call.attempted = named;
      else if (call.spec?.id.from === 'link') call.linkAccount = this.#deps.linkAccount?.(text(at(body, field))) ?? '';
      else call.resource = named;
    }
    const ref = this.#ref(call, undefined);
    if (ref) call.before = copy(this.#read(ref));
  }

  /**
   * Builds the call's record from its answer (status, and the JSON answer when there is one) and
   * appends it. Never throws: a record that cannot be made is reported, and the call stands.
   */
  finish(call: PendingCall, status: number, answer: unknown): void {
    try {
      this.#deps.append(AUDIT_LOG, this.#entry(call, status, answer));
    } catch (error) {
      this.#deps.logger.error({ err: error, action: call.start.operationId }, 'audit record not written');
    }
  }

  #entry(call: PendingCall, status: number, answer: unknown): AuditEntry {
    const { start } = call;
    const success = status < 400;
    // A sign-in or first-run setup is made by the account it signs in to.
    const signedInTo = success ? at(answer, 'account') : undefined;
    const actor: Actor | undefined =
      start.actor ??
      (typeof signedInTo === 'object' && signedInTo !== null
        ? { id: text(at(signedInTo, 'id')), name: text(at(signedInTo, 'email')), role: text(at(signedInTo, 'role')) }
        : this.#linkHolder(call));
    const ref = this.#ref(call, answer);
    const entry: AuditEntry = {
      _timestamp: call.at,
      account_id: actor?.id ?? '',
      account: actor?.name ?? call.attempted,
      account_role: actor?.role ?? '',
      src_ip: start.ip,
      user_agent: start.userAgent.slice(0, 512),
      method: start.method,
      route: start.route,
      action: start.operationId,
      resource_kind: ref?.kind ?? (start.operationId.startsWith('sign') ? 'session' : ''),
      resource_id: ref?.id ?? (call.resource || (start.operationId === 'signIn' && actor ? actor.id : '')),
      status,
      outcome: success ? 'success' : 'failure',
      duration_ms: Math.max(0, this.#deps.clock.now() - call.at),
    };
    if (!success) {
      const code = text(at(answer, 'error.code'));
      if (code) entry.error_code = code;
      return entry;
    }
    if (!ref) return entry;
    const after = this.#read(ref);
    if (call.before !== undefined) entry.before = maskSecrets(call.before);
    if (after !== undefined) entry.after = maskSecrets(after);
    if (call.before !== undefined && after !== undefined) entry.changed_fields = changedFields(call.before, after);
    return entry;
  }

  /** The object a call changes, once its id is known (a created object's only from the answer). */
  #ref(call: PendingCall, answer: unknown): SubjectRef | undefined {
    const { spec, start } = call;
    if (!spec) return undefined;
    let id: string | null;
    switch (spec.id.from) {
      case 'none':
        id = null;
        break;
      case 'param':
        id = text(start.params[spec.id.name]);
        break;
      case 'caller':
        id = start.actor?.id ?? '';
        break;
      case 'link':
        id = call.linkAccount;
        break;
      case 'response':
        id = text(at(answer, spec.id.path));
        break;
    }
    if (id === '') return undefined;
    const ref: SubjectRef = { kind: spec.kind, id };
    if (spec.siteParam !== undefined) ref.siteId = text(start.params[spec.siteParam]);
    return ref;
  }

  /** Whoever holds an e-mailed link acts as its account (the link was sent to that address). */
  #linkHolder(call: PendingCall): Actor | undefined {
    if (!call.linkAccount) return undefined;
    const account = this.#deps.config().accounts.find((a) => a.id === call.linkAccount);
    return account ? { id: account.id, name: account.email, role: account.role } : undefined;
  }

  #read(ref: SubjectRef): unknown {
    try {
      return readSubject(this.#deps, ref);
    } catch (error) {
      this.#deps.logger.warn({ err: error, kind: ref.kind }, 'audit: cannot read the changed object');
      return undefined;
    }
  }
}
