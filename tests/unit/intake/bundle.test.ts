import { describe, expect, it } from 'vitest';
import { bundleFiles, certificateBundle } from '../../../engine/intake/bundle.ts';
import { issueBundle } from '../../../engine/intake/certificates.ts';

// The "download certificate" zip: the three PEM files named as the spec names them, an rsyslog
// configuration (RainerScript and legacy) that uses gtls, anon and stream driver mode 1 towards the
// intake, and a README. No configuration name can add a line rsyslog would read as a directive.

const bundle = issueBundle({ configId: 'log_tcp1', configName: 'Firewall logs', now: Date.UTC(2026, 0, 5) });

/** The file names of a stored zip, from its central directory. */
function zipNames(zip: Buffer): string[] {
  const end = zip.length - 22;
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < zip.readUInt16LE(end + 10); i += 1) {
    const length = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + length));
    at += 46 + length;
  }
  return names;
}

/** Lines rsyslog reads as configuration, not comments or blank lines. */
const directives = (text: string): string[] =>
  text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));

describe('certificateBundle', () => {
  it('holds the PEM files, both rsyslog configurations and a README', () => {
    const zip = certificateBundle(bundle, { host: '10.0.0.5' });
    expect(zipNames(zip)).toEqual([
      'ca_cert.pem',
      'csr_cert.pem',
      'private_key.pem',
      'rsyslog.conf',
      'rsyslog-legacy.conf',
      'README.md',
    ]);
    expect(zip.includes(bundle.clientCertPem)).toBe(true);
    expect(zip.includes(bundle.clientKeyPem)).toBe(true);
    expect(zip.includes(bundle.caKeyPem)).toBe(false);
  });

  it('writes a RainerScript configuration for gtls, anon, mode 1 towards the intake', () => {
    const { rainerScript } = bundleFiles(bundle, { host: 'intake.example', port: 5514 });
    expect(rainerScript).toContain('DefaultNetstreamDriverCAFile="/etc/rsyslog.d/rampart/log_tcp1/ca_cert.pem"');
    expect(rainerScript).toContain('DefaultNetstreamDriverCertFile="/etc/rsyslog.d/rampart/log_tcp1/csr_cert.pem"');
    expect(rainerScript).toContain('DefaultNetstreamDriverKeyFile="/etc/rsyslog.d/rampart/log_tcp1/private_key.pem"');
    expect(rainerScript).toMatch(
      /action\(type="omfwd" protocol="tcp" target="intake\.example" port="5514"\s+StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="anon"\s+template="RampartPlain"/,
    );
  });

  it('uses the json template for a json configuration', () => {
    const { rainerScript, legacy } = bundleFiles(bundle, { host: '10.0.0.5', templateType: 'json' });
    expect(rainerScript).toContain('template="RampartJson"');
    expect(legacy).toContain(';RampartJson');
  });

  it('writes the legacy form with the same settings', () => {
    const { legacy } = bundleFiles(bundle, { host: '10.0.0.5', port: 6514 });
    expect(directives(legacy)).toEqual(
      expect.arrayContaining([
        '$DefaultNetstreamDriver gtls',
        '$DefaultNetstreamDriverCAFile /etc/rsyslog.d/rampart/log_tcp1/ca_cert.pem',
        '$ActionSendStreamDriverMode 1',
        '$ActionSendStreamDriverAuthMode anon',
        '*.* @@10.0.0.5:6514;RampartPlain',
      ]),
    );
    expect(bundleFiles(bundle, { host: '::1' }).legacy).toContain('*.* @@[::1]:5514;');
  });

  it('says in the README where the files go and which packages are needed', () => {
    const { readme } = bundleFiles(bundle, { host: '10.0.0.5' });
    expect(readme).toContain('apt-get install rsyslog rsyslog-gnutls');
    expect(readme).toContain('/etc/rsyslog.d/rampart/log_tcp1');
    expect(readme).toContain('logger');
  });

  it('keeps a hostile configuration name inside comments', () => {
    const hostile = issueBundle({
      configId: 'log_tcp2',
      configName: 'x\n$ModLoad imfile\r*.* @@evil:1\u2028action(type="omfile" file="/tmp/x")\u0085$IncludeConfig /tmp',
      now: Date.UTC(2026, 0, 5),
    });
    const clean = bundleFiles(hostile, { host: '10.0.0.5' });
    const plain = bundleFiles({ ...hostile, configName: 'plain' }, { host: '10.0.0.5' });
    for (const key of ['rainerScript', 'legacy'] as const) {
      expect(directives(clean[key])).toEqual(directives(plain[key]));
      expect(clean[key]).not.toMatch(/[\r\u2028\u0085]/);
    }
    expect(clean.readme.split('\n').length).toBe(plain.readme.split('\n').length);
  });

  it('refuses a host, port or directory that could carry anything but an address', () => {
    expect(() => bundleFiles(bundle, { host: 'evil"\naction(' })).toThrow(/IP address or a DNS name/);
    expect(() => bundleFiles(bundle, { host: '10.0.0.5', port: 70000 })).toThrow(/port/);
    expect(() => bundleFiles(bundle, { host: '10.0.0.5', directory: '/etc/x"y' })).toThrow(/directory/);
    expect(() => bundleFiles(bundle, { host: '10.0.0.5', directory: '/etc/../x' })).toThrow(/directory/);
  });
});
