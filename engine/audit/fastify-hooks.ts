import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAudited } from './operations.ts';
import type { Actor, AuditTrail, PendingCall } from './audit-trail.ts';

export interface AuditHookOptions {
  /** The signed-in account a request's cookies name, read when the call arrives (a sign-out ends it). */
  actorOf(request: FastifyRequest): Actor | undefined;
}

/** Largest JSON answer read for the record (an id, an error code, the account signed in to). */
const MAX_ANSWER = 1024 * 1024;

function operationOf(request: FastifyRequest): string | undefined {
  const config = request.routeOptions.config as { operationId?: unknown } | undefined;
  return typeof config?.operationId === 'string' ? config.operationId : undefined;
}

function answerOf(reply: FastifyReply, payload: unknown): unknown {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.includes('json')) return undefined;
  const raw = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (raw === undefined || raw.length > MAX_ANSWER) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Hooks the trail into the console server. A route declares its operation in its Fastify config
 * (`config.operationId`); calls of audited operations are followed from arrival (onRequest: who,
 * from where, which route) through the moment before the handler (preHandler: the object before)
 * to the answer (onSend: status, error code, a created object's id, the object after). The record
 * is staged before the answer leaves, so a client's next call can already find it. Refusals that
 * never reach a handler (401, 403, a body that is not JSON) are recorded with their status too.
 */
export function registerAuditHooks(app: FastifyInstance, trail: AuditTrail, options: AuditHookOptions): void {
  const pending = new WeakMap<FastifyRequest, PendingCall>();

  app.addHook('onRequest', (request, _reply, done) => {
    const operationId = operationOf(request);
    if (operationId === undefined || !isAudited(request.method, operationId)) {
      done();
      return;
    }
    const agent = request.headers['user-agent'];
    pending.set(
      request,
      trail.begin({
        operationId,
        method: request.method,
        route: request.routeOptions.url ?? '',
        params: (request.params ?? {}) as Record<string, unknown>,
        ip: request.ip,
        userAgent: typeof agent === 'string' ? agent : '',
        actor: options.actorOf(request),
      }),
    );
    done();
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const call = pending.get(request);
    if (call) trail.beforeHandler(call, request.body);
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const call = pending.get(request);
    if (call) {
      pending.delete(request);
      trail.finish(call, reply.statusCode, answerOf(reply, payload));
    }
    done(null, payload);
  });

  // An answer that never passed onSend (the connection was taken over or lost): recorded with its status.
  app.addHook('onResponse', (request, reply, done) => {
    const call = pending.get(request);
    if (call) {
      pending.delete(request);
      trail.finish(call, reply.statusCode, undefined);
    }
    done();
  });
}
