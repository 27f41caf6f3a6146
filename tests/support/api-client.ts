/** A tiny console-API client for tests: keeps the session cookie and sends the CSRF header. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    init: { rawBody?: string; contentType?: string; csrf?: boolean } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrf && init.csrf !== false && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    let payload: string | undefined;
    if (init.rawBody !== undefined) payload = init.rawBody;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    const response = await fetch(this.baseUrl + '/api/v1' + path, { method, headers, body: payload });
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('rampart_session='));
    if (setCookie) this.cookie = setCookie.split(';')[0];
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  async signIn(email: string, password: string): Promise<ApiResponse<{ csrfToken: string }>> {
    const res = await this.request<{ csrfToken: string }>('POST', '/session', { email, password });
    if (res.status === 200) this.csrf = res.body.csrfToken;
    return res;
  }

  async setup(email: string, password: string): Promise<ApiResponse<{ csrfToken: string }>> {
    const res = await this.request<{ csrfToken: string }>('POST', '/setup', { email, password });
    if (res.status === 201) this.csrf = res.body.csrfToken;
    return res;
  }
}
