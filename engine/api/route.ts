import type { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { Edition, ModuleKey } from '#engine/shared';
import type { AccountRecord, Session } from './deps.ts';
import type { Access, BodyOf, Contract, HttpMethod, ParamsOf, QueryOf, ResponseOf } from './contracts/index.ts';

export type { Access, HttpMethod };

export interface Caller {
  account: AccountRecord;
  session: Session;
}

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Present on every route whose access is not 'public'; on public routes, if signed in. */
  caller: Caller | undefined;
  ip: string;
  reply: FastifyReply;
}

export interface RouteDef<P, Q, B, R> {
  method: HttpMethod;
  /** Path below /api/v1, Fastify syntax (`/accounts/:id`). */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  /** The licensed module the route needs; without it the route answers 403 MODULE_NOT_ACTIVE. */
  module?: ModuleKey;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Success status; 204 routes have no response schema. */
  status?: 200 | 201 | 202 | 204;
  response?: z.ZodType<R>;
  /** A download answers with the file the handler returns instead of JSON. */
  produces?: 'json' | 'download';
  /** The content type a download answers with, as the OpenAPI document states it (default application/octet-stream). */
  downloadType?: string;
  /** Body fields the service requires in one edition only (the schema cannot say it): stated in that edition's document. */
  requiredInEdition?: Partial<Record<Edition, readonly string[]>>;
  /** Largest request body in bytes, when a route takes more than the API's default (uploads). */
  bodyLimit?: number;
  handler(ctx: RouteContext<P, Q, B>): Promise<R> | R;
}

/** What a download route's handler returns. */
export interface Download {
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** A route with its type parameters erased, as the registry holds them. */
export interface AnyRoute extends Contract {
  /** The contract the route is bound to (absent on routes still declared with defineRoute). */
  contract?: Contract;
  handler(ctx: RouteContext<unknown, unknown, unknown>): Promise<unknown>;
}

export function defineRoute<P = undefined, Q = undefined, B = undefined, R = undefined>(
  def: RouteDef<P, Q, B, R>,
): AnyRoute {
  return def as unknown as AnyRoute;
}

/** What a bound handler returns: the response's type, a file for a download, nothing for 204. */
export type HandlerResult<C extends Contract> = C['produces'] extends 'download'
  ? Download
  : C['response'] extends z.ZodType
    ? ResponseOf<C>
    : void;

export type Handler<C extends Contract> = (
  ctx: RouteContext<ParamsOf<C>, QueryOf<C>, BodyOf<C>>,
) => Promise<HandlerResult<C>> | HandlerResult<C>;

/**
 * Binds a handler to its contract: the contract says where the route lives, who may call it and
 * what goes in and out (parsed before the handler runs, checked after); the handler only does it.
 */
export function bindRoute<const C extends Contract>(contract: C, handler: Handler<C>): AnyRoute {
  return { ...contract, contract, handler: handler as AnyRoute['handler'] };
}
