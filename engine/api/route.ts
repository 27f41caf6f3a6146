import type { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { Edition, ModuleKey, Role } from '#engine/shared';
import type { AccountRecord, Session } from './deps.ts';

/** Who may call a route: anyone, anyone signed in, or the listed roles. */
export type Access = 'public' | 'signedIn' | readonly Role[];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

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
  status?: 200 | 201 | 204;
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
export interface AnyRoute {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  module?: ModuleKey;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  status?: 200 | 201 | 204;
  response?: z.ZodType;
  produces?: 'json' | 'download';
  downloadType?: string;
  requiredInEdition?: Partial<Record<Edition, readonly string[]>>;
  bodyLimit?: number;
  handler(ctx: RouteContext<unknown, unknown, unknown>): Promise<unknown>;
}

export function defineRoute<P = undefined, Q = undefined, B = undefined, R = undefined>(
  def: RouteDef<P, Q, B, R>,
): AnyRoute {
  return def as unknown as AnyRoute;
}
