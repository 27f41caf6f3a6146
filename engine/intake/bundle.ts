import { isIP } from 'node:net';
import { RampartError } from '#engine/shared';
import { checkConfigId, type CertificateBundle } from './certificates.ts';
import { zipStore } from './zip.ts';

/** The intake's TCP port (spec 4.1). */
export const INTAKE_PORT = 5514;

/** The record shape the sender's rsyslog writes: the configuration's template type (spec 4.1). */
export type TemplateType = 'plain_text' | 'json';

export interface BundleTarget {
  /** The intake address senders connect to: an IP address or a DNS name. */
  host: string;
  port?: number;
  templateType?: TemplateType;
  /** Where the README tells the user to put the PEM files on the sender; `/etc/rsyslog.d/rampart/<configId>`. */
  directory?: string;
  /** The zip entries' time; now by default. */
  modified?: Date;
}

/** The names of the files in a bundle, as the spec names them. */
export const BUNDLE_FILES = {
  ca: 'ca_cert.pem',
  cert: 'csr_cert.pem',
  key: 'private_key.pem',
  rainerScript: 'rsyslog.conf',
  legacy: 'rsyslog-legacy.conf',
  readme: 'README.md',
} as const;

const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const SAFE_PATH = /^\/[A-Za-z0-9._/-]{1,200}$/;

/**
 * The "download certificate" zip of a TCP configuration: its CA, client certificate and key, an
 * rsyslog configuration that works as is (RainerScript and legacy forms) and a README.
 *
 * Every value written into a configuration file is either validated to a safe alphabet (host,
 * port, paths, ids) or written only inside a comment with line breaks and control characters
 * removed (the configuration's name), so no name can add an rsyslog directive.
 */
export function certificateBundle(bundle: CertificateBundle, target: BundleTarget): Buffer {
  const files = bundleFiles(bundle, target);
  return zipStore(
    [
      { name: BUNDLE_FILES.ca, data: bundle.caCertPem },
      { name: BUNDLE_FILES.cert, data: bundle.clientCertPem },
      { name: BUNDLE_FILES.key, data: bundle.clientKeyPem, mode: 0o600 },
      { name: BUNDLE_FILES.rainerScript, data: files.rainerScript },
      { name: BUNDLE_FILES.legacy, data: files.legacy },
      { name: BUNDLE_FILES.readme, data: files.readme },
    ],
    target.modified ?? new Date(),
  );
}

/** The bundle's text files (exported for tests and for showing them in the console). */
export function bundleFiles(
  bundle: CertificateBundle,
  target: BundleTarget,
): { rainerScript: string; legacy: string; readme: string } {
  checkConfigId(bundle.configId);
  const host = checkHost(target.host);
  const port = target.port ?? INTAKE_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RampartError('VALIDATION_FAILED', 'The intake port must be an integer from 1 to 65535.', {
      field: 'port',
    });
  }
  const directory = target.directory ?? `/etc/rsyslog.d/rampart/${bundle.configId}`;
  if (!SAFE_PATH.test(directory) || directory.split('/').includes('..')) {
    throw new RampartError(
      'VALIDATION_FAILED',
      'The certificate directory must be an absolute path of letters, digits, ".", "_", "-" and "/".',
      {
        field: 'directory',
      },
    );
  }
  const template = target.templateType ?? 'plain_text';
  const context: Context = {
    id: bundle.configId,
    name: commentText(bundle.configName),
    host,
    port,
    dir: directory.replace(/\/+$/, ''),
    template,
  };
  return { rainerScript: rainerScript(context), legacy: legacyConfig(context), readme: readme(context) };
}

interface Context {
  id: string;
  /** Already made safe for a comment. */
  name: string;
  host: string;
  port: number;
  dir: string;
  template: TemplateType;
}

/** rsyslog's `%timestamp%` is RFC 3164's 15 characters (`Mmm dd hh:mm:ss`): spec 4.1's plain_text shape. */
const PLAIN_TEMPLATE =
  '%timestamp% %hostname% %syslogseverity-text% %syslogfacility-text% [%procid%]:%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\\n';

function rainerScript(c: Context): string {
  const templateName = c.template === 'json' ? 'RampartJson' : 'RampartPlain';
  return `# Rampart log intake: forwards this host's syslog over mutual TLS.
# Configuration: ${c.name}
# Configuration id: ${c.id}
# Install: see README.md. Copy this file to /etc/rsyslog.d/60-rampart-${c.id}.conf
# and the three .pem files to ${c.dir}/.

global(
  DefaultNetstreamDriver="gtls"
  DefaultNetstreamDriverCAFile="${c.dir}/ca_cert.pem"
  DefaultNetstreamDriverCertFile="${c.dir}/csr_cert.pem"
  DefaultNetstreamDriverKeyFile="${c.dir}/private_key.pem"
)

# plain_text records: <timestamp, 15 characters> <hostname> <severity> <facility> [<procid>]: <message>
template(name="RampartPlain" type="string"
  string="${PLAIN_TEMPLATE}")

# json records: one object per line with timestamp (YYYY-MM-DD hh:mm:ss), message, host,
# severity, facility, app-name and procid as strings.
template(name="RampartJson" type="list" option.json="on") {
  constant(value="{\\"timestamp\\":\\"")
  property(name="timereported" dateFormat="year")
  constant(value="-")
  property(name="timereported" dateFormat="month")
  constant(value="-")
  property(name="timereported" dateFormat="day")
  constant(value=" ")
  property(name="timereported" dateFormat="hour")
  constant(value=":")
  property(name="timereported" dateFormat="minute")
  constant(value=":")
  property(name="timereported" dateFormat="second")
  constant(value="\\",\\"message\\":\\"")
  property(name="msg" droplastlf="on")
  constant(value="\\",\\"host\\":\\"")
  property(name="hostname")
  constant(value="\\",\\"severity\\":\\"")
  property(name="syslogseverity-text")
  constant(value="\\",\\"facility\\":\\"")
  property(name="syslogfacility-text")
  constant(value="\\",\\"app-name\\":\\"")
  property(name="app-name")
  constant(value="\\",\\"procid\\":\\"")
  property(name="procid")
  constant(value="\\"}\\n")
}

# Every message goes to the intake. Authentication mode anon: the sender does not check the
# intake's certificate; the intake checks the sender's (csr_cert.pem, issued by ca_cert.pem).
# The queue holds messages while the intake is unreachable or slows the sender down.
action(type="omfwd" protocol="tcp" target="${c.host}" port="${c.port}"
  StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="anon"
  template="${templateName}"
  queue.type="LinkedList" queue.size="100000" action.resumeRetryCount="-1")
`;
}

function legacyConfig(c: Context): string {
  const template =
    c.template === 'json'
      ? `$template RampartJson,"{\\"timestamp\\":\\"%timereported:::date-year%-%timereported:::date-month%-%timereported:::date-day% %timereported:::date-hour%:%timereported:::date-minute%:%timereported:::date-second%\\",\\"message\\":\\"%msg:::drop-last-lf,json%\\",\\"host\\":\\"%hostname:::json%\\",\\"severity\\":\\"%syslogseverity-text%\\",\\"facility\\":\\"%syslogfacility-text%\\",\\"app-name\\":\\"%app-name:::json%\\",\\"procid\\":\\"%procid:::json%\\"}\\n"`
      : `$template RampartPlain,"${PLAIN_TEMPLATE}"`;
  const templateName = c.template === 'json' ? 'RampartJson' : 'RampartPlain';
  return `# Rampart log intake, legacy rsyslog syntax (for rsyslog older than v7; prefer rsyslog.conf).
# Configuration: ${c.name}
# Configuration id: ${c.id}
# Copy this file to /etc/rsyslog.d/60-rampart-${c.id}.conf and the .pem files to ${c.dir}/.

$DefaultNetstreamDriver gtls
$DefaultNetstreamDriverCAFile ${c.dir}/ca_cert.pem
$DefaultNetstreamDriverCertFile ${c.dir}/csr_cert.pem
$DefaultNetstreamDriverKeyFile ${c.dir}/private_key.pem

${template}

$ActionSendStreamDriver gtls
$ActionSendStreamDriverMode 1
$ActionSendStreamDriverAuthMode anon
$ActionQueueType LinkedList
$ActionResumeRetryCount -1
*.* @@${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port};${templateName}
`;
}

function readme(c: Context): string {
  return `# Rampart log intake: certificate bundle

Configuration: ${c.name}
Configuration id: ${c.id}
Intake: ${c.host} port ${c.port} (TCP with TLS)

## Files

- \`ca_cert.pem\`: the configuration's certificate authority.
- \`csr_cert.pem\`: this sender's client certificate, issued by \`ca_cert.pem\`. The intake knows
  the configuration by it: records sent with it are parsed with this configuration.
- \`private_key.pem\`: the client certificate's private key. Keep it readable by root only.
- \`rsyslog.conf\`: the rsyslog configuration (RainerScript, rsyslog 7 and later).
- \`rsyslog-legacy.conf\`: the same in the legacy syntax, for older rsyslog. Use one of the two.

Regenerating the certificate in the console replaces this bundle: the intake then refuses these
files, and open connections made with them are closed.

## Install (Debian / Ubuntu)

    apt-get install rsyslog rsyslog-gnutls
    install -d -m 0700 ${c.dir}
    install -m 0644 ca_cert.pem csr_cert.pem ${c.dir}/
    install -m 0600 private_key.pem ${c.dir}/
    install -m 0644 rsyslog.conf /etc/rsyslog.d/60-rampart-${c.id}.conf
    rsyslogd -N1          # checks the configuration
    systemctl restart rsyslog

The TLS settings are rsyslog's global stream-driver defaults: one Rampart configuration per
sending host. To receive logs from other machines over UDP port 514 (and forward them), enable
\`module(load="imudp")\` and \`input(type="imudp" port="514")\` in /etc/rsyslog.conf.

## Test

    logger -p user.notice "rampart intake test"
    # or, through the UDP input on port 514:
    logger -d -n 127.0.0.1 -P 514 "rampart intake test"

The line appears under the configuration's name in Log Management > Search (the configuration
must be saved first). rsyslog reports TLS problems in the system journal: \`journalctl -u rsyslog\`.
`;
}

/** A name for a comment: printable, one line, bounded. */
export function commentText(text: string): string {
  // Control characters (line breaks included), the Unicode line and paragraph separators, and
  // unpaired surrogates become spaces.
  const flat = text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]|\p{Cs}/gu, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function checkHost(host: string): string {
  const ip = isIP(host);
  if (ip === 4 || (ip === 6 && /^[0-9A-Fa-f:.]+$/.test(host))) return host;
  if (DNS_NAME.test(host)) return host;
  throw new RampartError('VALIDATION_FAILED', 'The intake address must be an IP address or a DNS name.', {
    field: 'host',
  });
}
