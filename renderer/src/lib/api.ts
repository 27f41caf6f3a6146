/**
 * The console's one way to the engine API: `call(contract, input)` with an operation's contract
 * (engine/api/contracts), typed by its schemas, JSON in and out, the CSRF header on every write of a
 * signed-in client, and failures as a typed ApiError carrying the engine's stable code.
 */
import { requestFor, type CallInput, type Contract, type ResponseOf } from './contracts.ts';

export type ErrorParams = Readonly<Record<string, string | number | boolean>>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly params: ErrorParams;
  /** Every bad field when the engine reported several (each with this error's status and code). */
  readonly problems: readonly ApiError[];

  constructor(
    status: number,
    code: string,
    message: string,
    field?: string,
    params: ErrorParams = {},
    problems: readonly ApiError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.params = params;
    this.problems = problems;
  }

  /** The problems one by one: the list the engine sent, or this error alone. */
  parts(): readonly ApiError[] {
    return this.problems.length > 0 ? this.problems : [this];
  }
}

/** A network failure (engine stopped, connection refused) gets its own code so it can be translated. */
export const NETWORK_ERROR = 'NETWORK';

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; field?: unknown; params?: unknown; problems?: unknown };
}

interface ProblemBody {
  field?: unknown;
  message?: unknown;
  params?: unknown;
}

const paramsOf = (value: unknown): ErrorParams =>
  typeof value === 'object' && value !== null ? (value as ErrorParams) : {};

function toApiError(status: number, body: unknown): ApiError {
  const e = (body as ErrorBody | null)?.error;
  if (e && typeof e.code === 'string') {
    const code = e.code;
    const problems = (Array.isArray(e.problems) ? (e.problems as ProblemBody[]) : []).map(
      (p) =>
        new ApiError(
          status,
          code,
          typeof p.message === 'string' ? p.message : code,
          typeof p.field === 'string' ? p.field : undefined,
          paramsOf(p.params),
        ),
    );
    return new ApiError(
      status,
      code,
      typeof e.message === 'string' ? e.message : code,
      typeof e.field === 'string' ? e.field : undefined,
      paramsOf(e.params),
      problems,
    );
  }
  return new ApiError(status, status >= 500 ? 'INTERNAL' : 'UNKNOWN', `HTTP ${status}`);
}

export function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export interface CallOptions {
  /** A 401 is an answer, not a lost session (asking whether anyone is signed in, signing out). */
  quiet401?: boolean;
}

/** The arguments after the contract: its input (optional when every part of it is) and the options. */
export type CallArgs<C extends Contract> =
  object extends CallInput<C>
    ? [input?: CallInput<C>, options?: CallOptions]
    : [input: CallInput<C>, options?: CallOptions];

/** An operation that answers with a file. */
export type DownloadContract = Contract & { produces: 'download' };

export interface ApiClientOptions {
  /** Called when a signed-in request answers 401: the session ended (expired, signed out elsewhere). */
  onSessionLost?: (error: ApiError) => void;
}

export class ApiClient {
  csrfToken: string | null = null;
  readonly #options: ApiClientOptions;

  constructor(options: ApiClientOptions = {}) {
    this.#options = options;
  }

  /** Calls one operation: the answer is typed by the contract's response schema (undefined for 204). */
  call = async <C extends Contract>(contract: C, ...[input, options = {}]: CallArgs<C>): Promise<ResponseOf<C>> => {
    const request = requestFor(contract, input ?? ({} as CallInput<C>));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.method !== 'GET' && this.csrfToken) headers['X-CSRF-Token'] = this.csrfToken;
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers,
        body: request.body,
        credentials: 'same-origin',
      });
    } catch (cause) {
      throw new ApiError(0, NETWORK_ERROR, cause instanceof Error ? cause.message : 'network error');
    }
    if (response.status === 204) return undefined as ResponseOf<C>;
    const parsed = parseJson(await response.text());
    if (!response.ok) throw this.failed(response.status, parsed, options.quiet401 ?? false);
    return parsed as ResponseOf<C>;
  };

  /** Calls an operation that answers with a file (Content-Disposition attachment): the bytes and the engine's file name. */
  download = async <C extends DownloadContract>(
    contract: C,
    input: CallInput<C>,
  ): Promise<{ fileName: string; blob: Blob }> => {
    const request = requestFor(contract, input);
    let response: Response;
    try {
      // An export is a POST with the query as its body (and, as every write, the CSRF header).
      const headers: Record<string, string> = {};
      if (request.body !== undefined) headers['Content-Type'] = 'application/json';
      if (request.method !== 'GET' && this.csrfToken) headers['X-CSRF-Token'] = this.csrfToken;
      response = await fetch(request.url, {
        method: request.method,
        headers,
        body: request.body,
        credentials: 'same-origin',
      });
    } catch (cause) {
      throw new ApiError(0, NETWORK_ERROR, cause instanceof Error ? cause.message : 'network error');
    }
    if (!response.ok) throw this.failed(response.status, parseJson(await response.text()), false);
    const disposition = response.headers.get('content-disposition') ?? '';
    const fileName = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'download';
    return { fileName, blob: await response.blob() };
  };

  /** The error of a failed answer; a 401 to a signed-in client ends the session unless it is expected. */
  failed(status: number, body: unknown, quiet401 = false): ApiError {
    const error = toApiError(status, body);
    if (status === 401 && !quiet401 && this.csrfToken !== null) this.#options.onSessionLost?.(error);
    return error;
  }
}
