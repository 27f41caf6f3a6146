/**
 * The console's one way to the engine API: JSON in and out, the CSRF header on every write of a
 * signed-in client, and failures as a typed ApiError carrying the engine's stable code.
 */
import type {
  BasicRule,
  BasicRuleGroup,
  CustomRule,
  CustomRuleInput,
  GroupId,
  ProtectionLevel,
  RuleSetStatus,
  RuleSetDownloadJob,
  AccountList,
  AccountView,
  LicenceView,
  LinkDelivery,
  LinkInfo,
  PurchaseRecord,
  Role,
  SessionView,
  AntiBot,
  ConnectionTestView,
  GatewayAddressView,
  SiteGlobalInput,
  SiteGlobalView,
  SiteInput,
  SiteView,
  SystemVersion,
} from './api-types.ts';

export const API_BASE = '/api/v1';

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

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

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

  async request<T>(method: Method, path: string, body?: unknown, { quiet401 = false } = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET' && this.csrfToken) headers['X-CSRF-Token'] = this.csrfToken;
    let response: Response;
    try {
      response = await fetch(API_BASE + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch (cause) {
      throw new ApiError(0, NETWORK_ERROR, cause instanceof Error ? cause.message : 'network error');
    }
    if (response.status === 204) return undefined as T;
    const parsed = parseJson(await response.text());
    if (!response.ok) {
      const error = toApiError(response.status, parsed);
      if (response.status === 401 && !quiet401 && this.csrfToken !== null) this.#options.onSessionLost?.(error);
      throw error;
    }
    return parsed as T;
  }

  // Session and first-run setup
  setupStatus = () => this.request<{ needed: boolean }>('GET', '/setup');
  completeSetup = (email: string, password: string) => this.request<SessionView>('POST', '/setup', { email, password });
  session = () => this.request<SessionView>('GET', '/session', undefined, { quiet401: true });
  signIn = (email: string, password: string) => this.request<SessionView>('POST', '/session', { email, password });
  signOut = () => this.request<undefined>('DELETE', '/session', undefined, { quiet401: true });
  inspectLink = (token: string) => this.request<LinkInfo>('POST', '/links/inspect', { token });
  completeLink = (token: string, password: string) =>
    this.request<undefined>('POST', '/links/complete', { token, password });

  // My account and system
  me = () => this.request<AccountView>('GET', '/me');
  changeMyPassword = (currentPassword: string, newPassword: string) =>
    this.request<undefined>('PUT', '/me/password', { currentPassword, newPassword });
  systemVersion = () => this.request<SystemVersion>('GET', '/system/version');

  // Accounts (administrator)
  listAccounts = (filter: {
    activation?: 'pending' | 'activated';
    enabled?: boolean;
    limit?: number;
    cursor?: string;
  }) => {
    const q = new URLSearchParams();
    if (filter.activation) q.set('activation', filter.activation);
    if (filter.enabled !== undefined) q.set('enabled', String(filter.enabled));
    if (filter.limit !== undefined) q.set('limit', String(filter.limit));
    if (filter.cursor) q.set('cursor', filter.cursor);
    const qs = q.toString();
    return this.request<AccountList>('GET', `/accounts${qs ? `?${qs}` : ''}`);
  };
  createAccount = (email: string, role: Role) =>
    this.request<{ account: AccountView; delivery: LinkDelivery }>('POST', '/accounts', { email, role });
  resendActivation = (id: string) =>
    this.request<LinkDelivery>('POST', `/accounts/${encodeURIComponent(id)}/activation-email`);
  disableAccount = (id: string) => this.request<AccountView>('POST', `/accounts/${encodeURIComponent(id)}/disable`);
  enableAccount = (id: string) => this.request<AccountView>('POST', `/accounts/${encodeURIComponent(id)}/enable`);
  changeRole = (id: string, role: Role) =>
    this.request<AccountView>('PUT', `/accounts/${encodeURIComponent(id)}/role`, { role });
  resetPassword = (id: string) =>
    this.request<LinkDelivery>('POST', `/accounts/${encodeURIComponent(id)}/password-reset`);
  deleteAccount = (id: string) => this.request<undefined>('DELETE', `/accounts/${encodeURIComponent(id)}`);

  // Licence (administrator)
  licence = () => this.request<LicenceView>('GET', '/licence');
  importLicence = (content: string) => this.request<LicenceView>('POST', '/licence', { content });
  purchases = () => this.request<{ items: PurchaseRecord[] }>('GET', '/licence/purchases');
  renewPurchase = (orderNumber: string) =>
    this.request<undefined>('POST', `/licence/purchases/${encodeURIComponent(orderNumber)}/renew`);

  // Sites (administrator and user)
  listSites = (search?: string) => {
    const q = search?.trim() ? `?${new URLSearchParams({ search: search.trim() }).toString()}` : '';
    return this.request<{ items: SiteView[] }>('GET', `/sites${q}`);
  };
  site = (id: string) => this.request<SiteView>('GET', `/sites/${encodeURIComponent(id)}`);
  createSite = (input: SiteInput) => this.request<SiteView>('POST', '/sites', input);
  updateSite = (id: string, input: SiteInput) =>
    this.request<SiteView>('PUT', `/sites/${encodeURIComponent(id)}`, input);
  copySite = (id: string) => this.request<SiteView>('POST', `/sites/${encodeURIComponent(id)}/copy`);
  deleteSite = (id: string) => this.request<undefined>('DELETE', `/sites/${encodeURIComponent(id)}`);
  updateAntiBot = (id: string, antiBot: AntiBot) =>
    this.request<SiteView>('PUT', `/sites/${encodeURIComponent(id)}/anti-bot`, antiBot);
  siteGlobal = () => this.request<SiteGlobalView>('GET', '/site-global');
  updateSiteGlobal = (input: SiteGlobalInput) => this.request<SiteGlobalView>('PUT', '/site-global', input);
  /** Administrators only; the answer carries the new key. */
  rotateAccessKey = () => this.request<SiteGlobalView & { accessKey: string }>('POST', '/site-global/access-key');
  revealAccessKey = () => this.request<{ accessKey: string }>('GET', '/site-global/access-key');
  downloadPlugin = (id: string) => this.download(`/sites/${encodeURIComponent(id)}/plugin`);
  gatewayAddress = () => this.request<GatewayAddressView>('GET', '/gateway-address');
  setGatewayAddress = (address: string) => this.request<GatewayAddressView>('PUT', '/gateway-address', { address });
  testSiteConnection = (id: string) =>
    this.request<ConnectionTestView>('POST', `/sites/${encodeURIComponent(id)}/connection-test`);

  // Basic application security rules (administrator and user)
  ruleSet = () => this.request<RuleSetStatus>('GET', '/rule-set');
  setRuleSetDir = (dir: string | null) => this.request<RuleSetStatus>('PUT', '/rule-set', { dir });
  uploadRuleSet = (fileName: string, contentBase64: string, onprogress?: (sent: number, total: number) => void) =>
    this.send<RuleSetStatus>('POST', '/rule-set/upload', { fileName, contentBase64 }, onprogress);
  downloadRuleSet = (version: string) => this.request<RuleSetDownloadJob>('POST', '/rule-set/download', { version });
  basicRules = (siteId: string) =>
    this.request<{ groups: BasicRuleGroup[] }>('GET', `/sites/${encodeURIComponent(siteId)}/basic-rules`);
  updateBasicGroup = (siteId: string, group: GroupId, setting: { enabled: boolean; level: ProtectionLevel }) =>
    this.request<BasicRuleGroup>('PUT', `/sites/${encodeURIComponent(siteId)}/basic-rules/groups/${group}`, setting);
  groupRules = (siteId: string, group: GroupId) =>
    this.request<{ items: BasicRule[] }>(
      'GET',
      `/sites/${encodeURIComponent(siteId)}/basic-rules/groups/${group}/rules`,
    );
  customRules = (siteId: string) =>
    this.request<{ items: CustomRule[] }>('GET', `/sites/${encodeURIComponent(siteId)}/custom-rules`);
  createCustomRule = (siteId: string, input: CustomRuleInput) =>
    this.request<CustomRule>('POST', `/sites/${encodeURIComponent(siteId)}/custom-rules`, input);
  updateCustomRule = (siteId: string, ruleId: string, input: CustomRuleInput) =>
    this.request<CustomRule>(
      'PUT',
      `/sites/${encodeURIComponent(siteId)}/custom-rules/${encodeURIComponent(ruleId)}`,
      input,
    );
  deleteCustomRule = (siteId: string, ruleId: string) =>
    this.request<undefined>(
      'DELETE',
      `/sites/${encodeURIComponent(siteId)}/custom-rules/${encodeURIComponent(ruleId)}`,
    );

  /**
   * A write whose body is large enough that the person should see it leave (an archive upload):
   * XMLHttpRequest, because fetch reports no upload progress. Same headers and errors as `request`.
   */
  send<T>(method: Method, path: string, body: unknown, onprogress?: (sent: number, total: number) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, API_BASE + path);
      xhr.withCredentials = true;
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.setRequestHeader('Content-Type', 'application/json');
      if (this.csrfToken) xhr.setRequestHeader('X-CSRF-Token', this.csrfToken);
      if (onprogress)
        xhr.upload.onprogress = (event) => onprogress(event.loaded, event.lengthComputable ? event.total : 0);
      xhr.onerror = () => reject(new ApiError(0, NETWORK_ERROR, 'network error'));
      xhr.onload = () => {
        if (xhr.status === 204) return resolve(undefined as T);
        const parsed = parseJson(xhr.responseText);
        if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as T);
        const error = toApiError(xhr.status, parsed);
        if (xhr.status === 401 && this.csrfToken !== null) this.#options.onSessionLost?.(error);
        reject(error);
      };
      xhr.send(JSON.stringify(body));
    });
  }

  /** A file answer (Content-Disposition attachment): the bytes and the engine's file name. */
  async download(path: string): Promise<{ fileName: string; blob: Blob }> {
    let response: Response;
    try {
      response = await fetch(API_BASE + path, { credentials: 'same-origin' });
    } catch (cause) {
      throw new ApiError(0, NETWORK_ERROR, cause instanceof Error ? cause.message : 'network error');
    }
    if (!response.ok) {
      const error = toApiError(response.status, parseJson(await response.text()));
      if (response.status === 401 && this.csrfToken !== null) this.#options.onSessionLost?.(error);
      throw error;
    }
    const disposition = response.headers.get('content-disposition') ?? '';
    const fileName = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'download';
    return { fileName, blob: await response.blob() };
  }
}
