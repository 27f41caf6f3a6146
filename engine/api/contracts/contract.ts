import type { z } from 'zod';
import type { Edition, ModuleKey, Role } from '#engine/shared';

/** Who may call an operation: anyone, anyone signed in, or the listed roles. */
export type Access = 'public' | 'signedIn' | readonly Role[];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One operation of the console API, as both sides see it: where it lives, who may call it, and the
 * zod schemas of its input and output. The engine binds a handler to it (`bindRoute`), the OpenAPI
 * document is generated from it, and the console calls it with the same types.
 */
export interface Contract {
  method: HttpMethod;
  /** Path below /api/v1, Fastify syntax (`/accounts/:id`). */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  /** The licensed module the operation needs; without it the answer is 403 MODULE_NOT_ACTIVE. */
  module?: ModuleKey;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Success status (202: accepted, it runs on); 204 operations have no response schema. */
  status?: 200 | 201 | 202 | 204;
  response?: z.ZodType;
  /** A download answers with a file instead of JSON; events is a server-sent-events stream. */
  produces?: 'json' | 'download' | 'events';
  /** The content type a download answers with, as the OpenAPI document states it (default application/octet-stream). */
  downloadType?: string | readonly string[];
  /** Body fields the service requires in one edition only (the schema cannot say it): stated in that edition's document. */
  requiredInEdition?: Partial<Record<Edition, readonly string[]>>;
  /** Largest request body in bytes, when an operation takes more than the API's default (uploads). */
  bodyLimit?: number;
  /** The body may be left out (every field is optional: it is read as `{}`). */
  bodyOptional?: boolean;
}

/** Declares a contract, keeping its literal type (the schemas' own types) for both sides. */
export const defineContract = <const C extends Contract>(contract: C): C => contract;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type Sent<S> = S extends z.ZodType ? z.input<S> : undefined;

/** What the engine's handler receives once the input is parsed. */
export type ParamsOf<C extends Contract> = Parsed<C['params']>;
export type QueryOf<C extends Contract> = Parsed<C['query']>;
export type BodyOf<C extends Contract> = Parsed<C['body']>;

/** What a client sends: the schemas' input types (defaults may be left out). */
export interface InputOf<C extends Contract> {
  params: Sent<C['params']>;
  query: Sent<C['query']>;
  body: Sent<C['body']>;
}

/** What a successful answer holds (undefined for 204 and downloads). */
export type ResponseOf<C extends Contract> = C['response'] extends z.ZodType ? z.output<C['response']> : undefined;
