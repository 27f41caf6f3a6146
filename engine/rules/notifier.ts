import { createHmac } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import type { RuleRecord } from '#engine/config-store';
import type { Clock, Logger, RuleNotifyInput } from '#engine/shared';

/** What a notification says: the rule, the event that fired it, the key and what was done. */
export interface Alert {
  at: number;
  ruleId: string;
  ruleName: string;
  siteId: string;
  eventId: string;
  eventName: string;
  object: string | null;
  key: string | null;
  action: 'block' | 'none';
  banned: string | null;
  /** Notifications of this rule held back by its throttle since the last one sent. */
  suppressed: number;
  meta: Record<string, string | number>;
}

export interface NotifierDeps {
  clock: Clock;
  logger: Logger;
  /** Sends an e-mail through the appliance's SMTP settings (absent: e-mail is not configured). */
  mail?: (to: string, subject: string, text: string) => Promise<void>;
  /** HTTP for webhooks (default: the global fetch). */
  fetch?: typeof fetch;
  /** Delays between webhook attempts (default 1 s, 5 s, 25 s). */
  retryDelaysMs?: readonly number[];
  /** Time allowed per webhook attempt (default 5 s). */
  timeoutMs?: number;
}

/** The counters the console shows. */
export interface NotifierCounts {
  sent: number;
  failed: number;
  suppressed: number;
  retries: number;
}

const RETRIES = [1_000, 5_000, 25_000] as const;

/** The webhook's signature header: `sha256=<hex HMAC-SHA256 of the body with the shared secret>`. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** An RFC 5424 syslog line (facility local0 = 16, severity warning = 4: priority 132). */
export function syslogLine(alert: Alert, host = hostname()): string {
  const stamp = new Date(alert.at).toISOString();
  const escape = (v: string) => v.replace(/[\\"\]]/g, (c) => `\\${c}`);
  const data =
    `[rampart@32473 rule="${escape(alert.ruleName)}" event="${escape(alert.eventName)}"` +
    ` object="${escape(alert.object ?? '')}" key="${escape(alert.key ?? '')}" action="${alert.action}"]`;
  const message = `rule "${alert.ruleName}" fired on event "${alert.eventName}"${alert.key ? ` for ${alert.object} ${alert.key}` : ''}${alert.banned ? `; banned ${alert.banned}` : ''}${alert.suppressed > 0 ? ` (${alert.suppressed} more held back)` : ''}`;
  return `<132>1 ${stamp} ${host.replace(/\s/g, '') || '-'} rampart - rule-fired ${data} ${message}`;
}

/**
 * Rule notifications: e-mail, a signed webhook with retries, and syslog, with a per-rule throttle.
 * Never blocks the caller (the event path): each notification runs on its own, and failures are
 * logged and counted, never thrown.
 */
export class Notifier {
  readonly #deps: NotifierDeps;
  readonly #last = new Map<string, { at: number; held: number }>();
  readonly counts: NotifierCounts = { sent: 0, failed: 0, suppressed: 0, retries: 0 };
  readonly #pending = new Set<Promise<void>>();

  constructor(deps: NotifierDeps) {
    this.#deps = deps;
  }

  /** Notifies for a rule that fired, unless its throttle holds the notification back. */
  notify(rule: RuleRecord, alert: Omit<Alert, 'suppressed'>): void {
    const notify = rule.notify;
    if (notify === undefined || (notify.emails.length === 0 && notify.webhook === null && notify.syslog === null))
      return;
    const now = this.#deps.clock.now();
    const last = this.#last.get(rule.id);
    if (last !== undefined && now - last.at < notify.throttleSeconds * 1000) {
      last.held += 1;
      this.counts.suppressed += 1;
      return;
    }
    this.#last.set(rule.id, { at: now, held: 0 });
    const full: Alert = { ...alert, suppressed: last?.held ?? 0 };
    const work = this.#send(notify, full).finally(() => this.#pending.delete(work));
    this.#pending.add(work);
  }

  /** Waits for the notifications under way (at stop, and in tests). */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async #send(notify: RuleNotifyInput, alert: Alert): Promise<void> {
    const jobs: Promise<void>[] = [];
    if (notify.webhook !== null) jobs.push(this.#webhook(notify.webhook.url, notify.webhook.secret, alert));
    if (notify.syslog !== null) jobs.push(this.#syslog(notify.syslog, alert));
    const mail = this.#deps.mail;
    for (const to of notify.emails) {
      if (mail === undefined) {
        this.#failed('e-mail', 'no SMTP server is configured', alert);
        continue;
      }
      const subject = `[Rampart] ${alert.ruleName}: ${alert.eventName}`;
      jobs.push(
        mail(to, subject, `${syslogLine(alert)}\n\n${JSON.stringify(alert, null, 2)}\n`).then(
          () => void (this.counts.sent += 1),
          (error: unknown) => this.#failed('e-mail', String(error), alert),
        ),
      );
    }
    await Promise.allSettled(jobs);
  }

  async #webhook(url: string, secret: string, alert: Alert): Promise<void> {
    const body = JSON.stringify({ type: 'rule.fired', ...alert });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Rampart-Webhook/1',
      'x-rampart-timestamp': String(alert.at),
    };
    if (secret !== '') headers['x-rampart-signature'] = webhookSignature(secret, body);
    const doFetch = this.#deps.fetch ?? fetch;
    const delays = this.#deps.retryDelaysMs ?? RETRIES;
    let reason = '';
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0) {
        this.counts.retries += 1;
        await new Promise((r) => setTimeout(r, delays[attempt - 1]));
      }
      try {
        const res = await doFetch(url, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#deps.timeoutMs ?? 5_000),
        });
        await res.body?.cancel();
        if (res.status >= 200 && res.status < 300) {
          this.counts.sent += 1;
          return;
        }
        reason = `HTTP ${res.status}`;
        // A client error will not change on a retry (except rate limiting).
        if (res.status >= 400 && res.status < 500 && res.status !== 429) break;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
    }
    this.#failed('webhook', reason, alert);
  }

  #syslog(target: NonNullable<RuleNotifyInput['syslog']>, alert: Alert): Promise<void> {
    const line = syslogLine(alert);
    return new Promise<void>((resolve) => {
      const done = (error?: Error | null) => {
        if (error) this.#failed('syslog', error.message, alert);
        else this.counts.sent += 1;
        resolve();
      };
      if (target.protocol === 'udp') {
        const socket = createSocket(target.host.includes(':') ? 'udp6' : 'udp4');
        socket.send(line, target.port, target.host.replace(/^\[|\]$/g, ''), (error) => {
          socket.close();
          done(error);
        });
        return;
      }
      // TCP: one line, newline-framed (RFC 6587 non-transparent framing), then close.
      const socket = connect({ host: target.host.replace(/^\[|\]$/g, ''), port: target.port, timeout: 5_000 });
      socket.once('timeout', () => socket.destroy(new Error('syslog connection timed out')));
      socket.once('error', (error) => done(error));
      socket.once('connect', () => socket.end(`${line}\n`, () => done()));
    });
  }

  #failed(channel: string, reason: string, alert: Alert): void {
    this.counts.failed += 1;
    this.#deps.logger.warn({ channel, reason, ruleId: alert.ruleId }, 'rule notification failed');
  }
}
