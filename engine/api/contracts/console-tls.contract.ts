import { z } from 'zod';
import { defineContract } from './contract.ts';
import { siteCertificateInput, siteCertificateView } from './sites.contract.ts';

/** The console's certificate holds the keys of every operator's session: administrators change it. */
const ADMINS = ['administrator'] as const;

export const consoleTlsView = z.object({
  source: z
    .enum(['generated', 'uploaded', 'files'])
    .describe(
      "generated: signed by the appliance's own CA; uploaded: an administrator's; files: RAMPART_CONSOLE_TLS_CERT / _KEY",
    ),
  certificate: siteCertificateView.nullable().describe('the certificate served (never its key)'),
  ca: z
    .object({ subject: z.string(), fingerprint256: z.string(), notAfter: z.number() })
    .nullable()
    .describe("the appliance's own CA: install it as trusted to reach the console without a warning"),
  hostNames: z.array(z.string()).describe('the names and addresses this host answers on'),
  uncoveredNames: z.array(z.string()).describe('those of them the served certificate does not name'),
});
export type ConsoleTlsView = z.infer<typeof consoleTlsView>;

export const getConsoleCertificate = defineContract({
  method: 'GET',
  path: '/system/console-certificate',
  operationId: 'getConsoleCertificate',
  summary: "The console's HTTPS certificate: where it comes from, its names and dates, and the appliance's own CA",
  tag: 'system',
  access: 'signedIn',
  response: consoleTlsView,
});

export const setConsoleCertificate = defineContract({
  method: 'PUT',
  path: '/system/console-certificate',
  operationId: 'setConsoleCertificate',
  summary:
    'Serve an uploaded certificate (PEM chain) and key on the console from the next connection: checked (key matches, valid now, usable for TLS)',
  tag: 'system',
  access: ADMINS,
  body: siteCertificateInput,
  response: consoleTlsView,
});

export const resetConsoleCertificate = defineContract({
  method: 'DELETE',
  path: '/system/console-certificate',
  operationId: 'resetConsoleCertificate',
  summary: "Go back to a certificate signed by the appliance's own CA, made now for this host's names and addresses",
  tag: 'system',
  access: ADMINS,
  response: consoleTlsView,
});

export const downloadConsoleCa = defineContract({
  method: 'GET',
  path: '/system/console-certificate/ca',
  operationId: 'downloadConsoleCa',
  summary: "The appliance's own CA certificate (PEM), to install as trusted on the machines operators use",
  tag: 'system',
  access: 'signedIn',
  produces: 'download',
  downloadType: 'application/x-pem-file',
});
