import { PROBE_SOURCE, CONFIG_MARKER, SHA256_MARKER } from './script/probe.source.ts';
import { SHA256_SOURCE } from './script/sha256.source.ts';
import type { IssuedChallenge } from './challenge.ts';

/** Web field extraction of a site (spec 2.1): selectors use the DOM `querySelector` syntax. */
export interface AccountExtraction {
  /** `location.pathname` of the login page, e.g. `/login`. */
  loginPath: string;
  /** Selector of the username input; its value is reported as `account`. */
  usernameSelector: string;
  /** Success message element and the text it must contain (empty text: presence is enough). */
  success?: { selector: string; text: string } | null;
  failure?: { selector: string; text: string } | null;
}

export interface ProbeScriptOptions {
  /** Where the probe POSTs its JSON report; same origin as the page so the answer can set cookies. */
  reportUrl: string;
  /**
   * `reload`: the script of the reload response; reloads the page once the token is set.
   * `page`: included in normal pages; refreshes the token before it expires, never reloads.
   * `sdk`: the bypass web SDK, loaded cross-origin from the gateway address: reports once per page
   * view (with the referrer) to an absolute `reportUrl`, never reloads, refreshes or replaces the page.
   */
  mode: 'reload' | 'page' | 'sdk';
  /** A proof-of-work challenge to solve before the first report; null or absent: none. */
  challenge?: Pick<IssuedChallenge, 'challenge' | 'difficulty'> | null;
  account?: AccountExtraction | null;
  /** Page mode: refresh at this fraction of the token lifetime. Default 0.7. */
  refreshAt?: number;
  /** How long the report waits for asynchronous checks (permissions). Default 200 ms. */
  asyncTimeoutMs?: number;
  /** How long after a login submit the outcome elements are looked for. Default 10 s. */
  loginWaitMs?: number;
}

// The SHA-256 part never changes: split the template once, so a render is two concatenations.
const [BEFORE, AFTER] = (() => {
  const withHash = PROBE_SOURCE.split(SHA256_MARKER).join(SHA256_SOURCE);
  const at = withHash.indexOf(CONFIG_MARKER);
  return [withHash.slice(0, at), withHash.slice(at + CONFIG_MARKER.length)] as const;
})();

/**
 * JSON is a valid ES3 expression; escaping `<`, `>`, `&` and the two JS line terminators keeps it
 * safe inside an inline `<script>` too.
 */
export function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The probe script text, ES3, configured for one site and one purpose. */
export function renderProbeScript(options: ProbeScriptOptions): string {
  const account = options.account
    ? {
        path: options.account.loginPath,
        input: options.account.usernameSelector,
        success: options.account.success ?? null,
        failure: options.account.failure ?? null,
      }
    : null;
  const challenge = options.challenge && options.challenge.difficulty > 0 ? options.challenge : null;
  const config = {
    reportUrl: options.reportUrl,
    mode: options.mode,
    pow: challenge ? { challenge: challenge.challenge, difficulty: challenge.difficulty } : null,
    account,
    refreshAt: options.refreshAt ?? 0.7,
    asyncTimeoutMs: options.asyncTimeoutMs ?? 200,
    loginWaitMs: options.loginWaitMs ?? 10_000,
  };
  return BEFORE + scriptLiteral(config) + AFTER;
}
