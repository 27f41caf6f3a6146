import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nginxLogFormat, parseGatewayLogDatagram, type LineParse } from '#engine/gateways';

// nginx's access-log line as the bundle's log_format and `access_log syslog:` send it, and what the
// gateway log port makes of any datagram.

/** nginx's escape=json: `"` and `\` escaped, bytes under 0x20 as \n, \r, \t, \b, \f or \u00XX. */
function nginxJsonEscape(value: string): string {
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };
  return value.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what nginx escapes
    /["\\\u0000-\u001f]/g,
    (c) => (c === '"' || c === '\\' ? `\\${c}` : (named[c] ?? `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`)),
  );
}

/** The bundle's log_format filled in as nginx would, with these variable values. */
function render(values: Record<string, string>): string {
  const template = nginxLogFormat()
    .split('\n')
    .slice(1)
    .map((piece) => piece.trim().replace(/^'|';?$/g, ''))
    .join('');
  return template.replace(/\$([a-z_]+)/g, (_, name: string) => nginxJsonEscape(values[name] ?? ''));
}

const VALUES: Record<string, string> = {
  rampart_site: 'site_abc123',
  request_id: '8f14e45fceea167a5a36dedd4bea2543',
  status: '201',
  body_bytes_sent: '1234',
  request_time: '0.012',
  msec: '1767225600.250',
  rampart_guard: 'IGNORE',
  remote_addr: '203.0.113.7',
  scheme: 'https',
  host: 'shop.example.com',
  request: 'GET /search?q="x"\\y HTTP/1.1',
  http_user_agent: 'Mozilla/5.0 \u0001\u001f 攻击',
  http_referer: 'https://example.com/',
  http_x_forwarded_for: '198.51.100.1, 203.0.113.7',
  http_x_real_ip: '',
};

const datagram = (message: string, header = '<190>Jan  1 00:00:00 rampart: '): Buffer => Buffer.from(header + message);

const reason = (parse: LineParse): string => (parse.ok ? 'ok' : parse.reason);

describe('the rampart_access log_format', () => {
  it('reads back every field nginx fills in, client text with quotes, backslashes and control bytes included', () => {
    const parsed = parseGatewayLogDatagram(datagram(render(VALUES)));
    expect(parsed).toEqual({
      ok: true,
      line: {
        site: 'site_abc123',
        id: '8f14e45fceea167a5a36dedd4bea2543',
        status: 201,
        bodyBytesSent: 1234,
        requestTimeSeconds: 0.012,
        endMs: 1_767_225_600_250,
        guard: 'IGNORE',
        addr: '203.0.113.7',
        scheme: 'https',
        host: 'shop.example.com',
        request: 'GET /search?q="x"\\y HTTP/1.1',
        userAgent: 'Mozilla/5.0 \u0001\u001f 攻击',
        referrer: 'https://example.com/',
        xff: '198.51.100.1, 203.0.113.7',
        realIp: '',
      },
    });
  });

  it('is one nginx directive with the site id taken from $rampart_site, not written into it', () => {
    const format = nginxLogFormat();
    expect(format).toMatch(/^log_format rampart_access escape=json\n/);
    expect(format.endsWith("}';")).toBe(true);
    expect(format).toContain('"site":"$rampart_site"');
    expect(format).toContain('"id":"$request_id"');
  });

  it('reads a line whose syslog header carries a host name', () => {
    const parsed = parseGatewayLogDatagram(datagram(render(VALUES), '<190>Jan  1 00:00:00 gw-1.example rampart: '));
    expect(parsed.ok && parsed.line.status).toBe(201);
  });

  it('takes "000" (no answer sent) as status 0 and an empty $msec as no time', () => {
    const parsed = parseGatewayLogDatagram(datagram(render({ ...VALUES, status: '000', msec: '' })));
    expect(parsed.ok && [parsed.line.status, parsed.line.endMs]).toEqual([0, null]);
  });
});

describe('datagrams that are not a line', () => {
  const line = JSON.parse(render(VALUES)) as Record<string, unknown>;
  const cases: [string, Buffer, string][] = [
    ['empty', Buffer.alloc(0), 'no syslog priority'],
    ['no priority', Buffer.from(`Jan  1 00:00:00 rampart: ${render(VALUES)}`), 'no syslog priority'],
    ['another tag', datagram(render(VALUES), '<190>Jan  1 00:00:00 nginx: '), 'no "rampart:" tag'],
    ['tag too far in', datagram(render(VALUES), `<190>${'x'.repeat(400)} rampart: `), 'no "rampart:" tag'],
    ['cut JSON', datagram(render(VALUES).slice(0, 80)), 'message is not JSON'],
    ['a JSON array', datagram('[1,2]'), 'message is not a JSON object'],
    ['JSON null', datagram('null'), 'message is not a JSON object'],
    ['a JSON string', datagram('"text"'), 'message is not a JSON object'],
    ['another version', datagram(JSON.stringify({ ...line, rampart: '2' })), 'unknown line version'],
    ['no version', datagram(JSON.stringify({ ...line, rampart: undefined })), 'unknown line version'],
    ['site with a space', datagram(JSON.stringify({ ...line, site: 'site 1' })), 'site: not a site id'],
    ['no request id', datagram(JSON.stringify({ ...line, id: '' })), 'id: not a request id'],
    ['status in words', datagram(JSON.stringify({ ...line, status: 'OK' })), 'status: not an HTTP status'],
    ['status as a number', datagram(JSON.stringify({ ...line, status: 201 })), 'status: not an HTTP status'],
    ['negative bytes', datagram(JSON.stringify({ ...line, bytes: '-1' })), 'bytes: not a byte count'],
    ['bytes past 2^53', datagram(JSON.stringify({ ...line, bytes: '9'.repeat(16) })), 'bytes: not a byte count'],
    ['time in exponent form', datagram(JSON.stringify({ ...line, time: '1e3' })), 'time: not a duration in seconds'],
    ['msec in words', datagram(JSON.stringify({ ...line, msec: 'now' })), 'msec: not a time'],
    ['user agent as an object', datagram(JSON.stringify({ ...line, user_agent: {} })), 'user_agent: not a string'],
    ['too large', datagram('x'.repeat(70_000)), 'datagram too large'],
  ];
  it.each(cases)('%s: refused with its reason', (_name, input, expected) => {
    expect(reason(parseGatewayLogDatagram(input))).toBe(expected);
  });

  it('reads only its own keys: a __proto__ key gives no field', () => {
    const { id: _id, ...rest } = line;
    expect(
      reason(parseGatewayLogDatagram(datagram(JSON.stringify(rest).replace(/}$/, ',"__proto__":{"id":"abc"}}')))),
    ).toBe('id: not a request id');
  });

  it('never throws on random bytes, with or without a syslog header', () => {
    for (let i = 0; i < 2000; i++) {
      const noise = randomBytes(i % 300);
      const input =
        i % 2 === 0 ? noise : Buffer.concat([Buffer.from('<190>Jan  1 00:00:00 rampart: {"rampart":"1",'), noise]);
      expect(parseGatewayLogDatagram(input).ok).toBe(false);
    }
  });
});
