/**
 * Vendor tool: `npm run licence -- keygen --out DIR` writes vendor-private.pem and
 * vendor-public.pem; `npm run licence -- sign --key vendor-private.pem --in payload.json --out
 * customer.lic` signs a licence payload (see licencePayloadSchema) into a licence file.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateVendorKeyPair, signLicence, licencePayloadSchema } from './licence-file.ts';

const USAGE = `usage:
  licence keygen --out DIR
  licence sign --key PRIVATE_KEY.pem --in PAYLOAD.json --out LICENCE.lic`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { out: { type: 'string' }, key: { type: 'string' }, in: { type: 'string' } },
    strict: true,
  });
  if (command === 'keygen') {
    if (!values.out) return fail('keygen needs --out DIR');
    const dir = resolve(values.out);
    await mkdir(dir, { recursive: true });
    const { privateKeyPem, publicKeyPem } = generateVendorKeyPair();
    await writeFile(join(dir, 'vendor-private.pem'), privateKeyPem, { mode: 0o600, flag: 'wx' });
    await writeFile(join(dir, 'vendor-public.pem'), publicKeyPem, { flag: 'wx' });
    console.log(`wrote ${join(dir, 'vendor-private.pem')} (keep it secret) and ${join(dir, 'vendor-public.pem')}`);
    return 0;
  }
  if (command === 'sign') {
    if (!values.key || !values.in || !values.out) return fail('sign needs --key, --in and --out');
    const payload = licencePayloadSchema.safeParse(JSON.parse(await readFile(values.in, 'utf8')));
    if (!payload.success) {
      const issue = payload.error.issues[0];
      return fail(`${values.in}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`);
    }
    await writeFile(values.out, signLicence(payload.data, await readFile(values.key, 'utf8')));
    console.log(`wrote ${values.out}`);
    return 0;
  }
  return fail(USAGE);
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
