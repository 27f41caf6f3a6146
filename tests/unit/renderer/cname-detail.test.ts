/**
 * The engine's refusals of CNAME settings and of a site certificate upload, raised for real, as the
 * console says them: in Chinese with no English left, in English as the engine meant them.
 */
import { describe, expect, it } from 'vitest';
import { checkSiteCertificate } from '#engine/sites';
import { cnameSchema, isRampartError, problemsOf, zodProblems, type FieldProblem } from '#engine/shared';
import { engineDetail, renderDetail } from '../../../renderer/src/lib/engine-detail.ts';
import { proxyErrorDetail } from '../../../renderer/src/components/sites/proxy-state.ts';
import { formatMessage } from '../../../renderer/src/lib/message-format.ts';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';
import { testAuthority, testCertificate } from '../../support/certificates.ts';

const DAY = 86_400_000;

function say(detail: ReturnType<typeof engineDetail>, locale: 'en' | 'zh-CN'): string | null {
  const catalogue: Record<string, string> = locale === 'en' ? en : zhCN;
  if (!detail) return null;
  return renderDetail(detail, (key, params) =>
    Object.hasOwn(catalogue, key) ? formatMessage(catalogue[key]!, params, locale) : null,
  );
}

const shown = (problem: FieldProblem, locale: 'en' | 'zh-CN'): string | null =>
  say(engineDetail(problem.message, problem.field, problem.params ?? {}), locale);

/** Latin words of three letters or more, less the names Chinese text keeps. */
const englishWords = (text: string): string[] =>
  (text.match(/[A-Za-z]{3,}/g) ?? []).filter(
    (w) => !['HTTP', 'HTTPS', 'PEM', 'TLS', 'BEGIN', 'CERTIFICATE', 'PRIVATE', 'KEY', 'app', 'internal'].includes(w),
  );

function certificateRefusal(input: { certificate: string; key: string }, domain: string): FieldProblem[] {
  try {
    checkSiteCertificate(input, domain, Date.now());
  } catch (error) {
    if (isRampartError(error)) return problemsOf(error);
    throw error;
  }
  throw new Error('the engine accepted it');
}

describe('CNAME and certificate refusals in the console language', () => {
  const ca = testAuthority();
  const shop = testCertificate(ca, ['shop.example.com']);
  const other = testCertificate(ca, ['shop.example.com']);

  it('says a key that does not belong to the certificate on the key field, in Chinese', () => {
    const [problem, ...rest] = certificateRefusal({ certificate: shop.chain, key: other.key }, 'shop.example.com');
    expect(rest).toEqual([]);
    expect(problem?.field).toBe('key');
    expect(shown(problem!, 'zh-CN')).toBe('与证书不匹配');
    expect(shown(problem!, 'en')).toBe('does not belong to the certificate');
  });

  it("says an expired certificate and one without the site's domain, with their dates and names", () => {
    const old = testCertificate(ca, ['old.example.com'], { from: Date.now() - 60 * DAY, to: Date.now() - DAY });
    const problems = certificateRefusal({ certificate: old.chain, key: old.key }, 'shop.example.com');
    expect(problems.map((p) => p.field)).toEqual(['certificate', 'certificate']);
    const texts = problems.map((p) => shown(p, 'zh-CN') ?? '');
    expect(texts[0]).toMatch(/^已于 \d{4}-\d{2}-\d{2} 过期$/);
    expect(texts[1]).toBe('不包含站点的域名 shop.example.com（证书包含的是 old.example.com）');
  });

  it('says text that is no PEM, and an encrypted key, in Chinese with no English left', () => {
    const problems = [
      ...certificateRefusal({ certificate: 'hello', key: 'world' }, 'shop.example.com'),
      ...certificateRefusal(
        {
          certificate: shop.chain,
          key: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nx\n-----END ENCRYPTED PRIVATE KEY-----',
        },
        'shop.example.com',
      ),
    ];
    expect(problems.map((p) => p.field)).toEqual(['certificate', 'key', 'key']);
    for (const problem of problems) {
      const text = shown(problem, 'zh-CN');
      expect(text, problem.message).not.toBeNull();
      expect(englishWords(text!), problem.message).toEqual([]);
    }
  });

  it("says the CNAME tab's own refusals in Chinese", () => {
    const parsed = cnameSchema.safeParse({ originAddress: 'no port here' });
    expect(parsed.success).toBe(false);
    const [address] = zodProblems(parsed.success ? null! : parsed.error, 'cname');
    expect(shown(address!, 'zh-CN')).toBe(
      '必须是 IP 地址或域名加端口：10.0.0.5:8080、[2001:db8::5]:443 或 app.internal:80',
    );
    // The sites service's rules for CNAME access (engine/sites/sites-service.ts).
    for (const [field, sentence, text] of [
      ['cname.originAddress', 'is required for CNAME access', 'CNAME 接入时必须填写'],
      ['cname.http', 'choose HTTP, HTTPS or both', '请选择 HTTP、HTTPS 或两者'],
      ['cname.httpsPort', 'must differ from the HTTP port', '必须与 HTTP 端口不同'],
    ] as const) {
      expect(shown({ field, message: `${field}: ${sentence}` }, 'zh-CN')).toBe(text);
    }
  });

  it("says the reverse proxy's port errors and site problems in Chinese, and leaves others to the engine", () => {
    expect(say(proxyErrorDetail('port 443 is in use by another program'), 'zh-CN')).toBe('端口 443 已被其他程序占用');
    expect(say(proxyErrorDetail('port 443 is in use by another program'), 'en')).toBe(
      'port 443 is in use by another program',
    );
    expect(
      say(
        proxyErrorDetail('no permission to listen on port 80 (ports below 1024 need root or CAP_NET_BIND_SERVICE)'),
        'zh-CN',
      ),
    ).toBe('没有监听端口 80 的权限（1024 以下的端口需要 root 权限或 CAP_NET_BIND_SERVICE 能力）');
    expect(say(proxyErrorDetail('port 8443 already serves HTTPS for another site'), 'zh-CN')).toBe(
      '端口 8443 已为其他站点提供 HTTPS 服务',
    );
    expect(say(proxyErrorDetail('another site serves shop.example.com on port 80'), 'zh-CN')).toBe(
      '其他站点已在端口 80 上服务 shop.example.com',
    );
    expect(proxyErrorDetail('listen EADDRNOTAVAIL 10.9.9.9:80')).toBeNull();
  });
});
