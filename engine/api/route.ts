import type { z } from 'zod';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
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

/** What a download route's handler returns. */
export interface Download {
  fileName: string;
  contentType: string;
  /** The file, whole or streamed (an export). */
  content: Buffer | Readable;
}

/** A route with its type parameters erased, as the registry holds them. */
export interface AnyRoute extends Contract {
  /** The contract the route is bound to. */
  contract: Contract;
  handler(ctx: RouteContext<unknown, unknown, unknown>): Promise<unknown>;
}

/** What a bound handler returns: the response's type, a file for a download, nothing for 204. */
export type HandlerResult<C extends Contract> = C['produces'] extends 'download'
  ? Download
  : C['produces'] extends 'events'
    ? void
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
