import type { z } from 'zod';
import type { Contract, HttpMethod } from './contract.ts';

type Part<S, K extends string> = S extends z.ZodType
  ? object extends z.input<S>
    ? { [P in K]?: z.input<S> }
    : { [P in K]: z.input<S> }
  : { [P in K]?: undefined };

/** What a caller passes to an operation: exactly the parts its contract declares (all-optional ones may be left out). */
export type CallInput<C extends Contract> = Part<C['params'], 'params'> &
  Part<C['query'], 'query'> &
  Part<C['body'], 'body'>;

/** An HTTP request for one operation, ready for fetch. */
export interface ContractRequest {
  method: HttpMethod;
  /** The path below the origin, with its parameters and query filled in. */
  url: string;
  /** The JSON body, when the operation takes one. */
  body: string | undefined;
}

export const API_BASE = '/api/v1';

/** A path or query value as text (they are strings, numbers and booleans; anything else as JSON). */
const scalar = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);

/**
 * The request that calls `contract` with `input`: path parameters filled in (percent-encoded), the
 * query string from the defined query fields, the body as JSON. It does not validate: the engine
 * does, and a form validates with the contract's own schema before it sends.
 */
export function requestFor<C extends Contract>(contract: C, input: CallInput<C>, base = API_BASE): ContractRequest {
  const { params, query, body } = input as {
    params?: Record<string, unknown>;
    query?: Record<string, unknown>;
    body?: unknown;
  };
  const path = contract.path.replace(/:([A-Za-z]\w*)/g, (_match, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') {
      throw new Error(`${contract.operationId}: the path parameter ${name} is missing`);
    }
    return encodeURIComponent(scalar(value));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) search.append(name, scalar(value));
  }
  const qs = search.toString();
  return {
    method: contract.method,
    url: `${base}${path}${qs ? `?${qs}` : ''}`,
    body: contract.body === undefined ? undefined : JSON.stringify(body ?? {}),
  };
}
