/**
 * npm run test:security: schemathesis (pinned, in the project's security virtualenv) against a
 * running engine, for every operation of the OpenAPI document, as no one, guest, user and
 * administrator. Fails on any 5xx, any answer the document does not allow (status, content type,
 * headers, body schema), invalid input accepted, an undeclared method not answered 405, a 2xx to a
 * caller below the operation's access, or an answer without the security headers.
 *
 * SECURITY_MAX_EXAMPLES (default 50; about 2.5 minutes in all) bounds the generated cases per operation and phase;
 * SECURITY_SEED (default 1) makes a run repeatable; SECURITY_REPORT_DIR keeps schemathesis' logs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { ApiClient } from '../support/api-client.ts';
import { recordTally } from '../support/test-tally.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const PASSWORD = 'Kettle#Blue7';
const MAX_EXAMPLES = process.env.SECURITY_MAX_EXAMPLES ?? '50';
const SEED = process.env.SECURITY_SEED ?? '1';
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'unsupported_method',
  'ignored_auth',
  'success_within_role',
  'security_headers_present',
];

type Role = 'anonymous' | 'guest' | 'user' | 'administrator';
interface Caller {
  role: Role;
  client: ApiClient | undefined;
}
interface RunResult {
  name: string;
  ok: boolean;
  seconds: number;
  summary: string;
}

function securityPython(): string {
  const venv = spawnSync(process.execPath, [join(root, 'scripts', 'security-venv.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (venv.status !== 0) throw new Error('test:security: could not prepare the Python virtualenv (see above)');
  return venv.stdout.trim();
}

/** An account of the given role, activated through its link (no SMTP here, so the link is returned). */
async function accountWithRole(engine: TestEngine, admin: ApiClient, role: 'user' | 'guest'): Promise<ApiClient> {
  const email = `${role}@example.com`;
  const created = await admin.request<{ delivery: { link: string | null } }>('POST', '/accounts', { email, role });
  const link = created.body.delivery?.link;
  if (created.status !== 201 || !link)
    throw new Error(`test:security: cannot create the ${role} account: ${created.text}`);
  const token = new URL(link).searchParams.get('token');
  const client = new ApiClient(engine.url);
  const completed = await client.request('POST', '/links/complete', { token, password: PASSWORD });
  if (completed.status !== 204)
    throw new Error(`test:security: cannot activate the ${role} account: ${completed.text}`);
  const signedIn = await client.signIn(email, PASSWORD);
  if (signedIn.status !== 200) throw new Error(`test:security: cannot sign in as ${role}: ${signedIn.text}`);
  return client;
}

/**
 * The last lines of schemathesis' output, with its pytest-style banners (`==== 3 warnings in 27.01s ====`)
 * reworded: a CI reader that looks for test runners' closing lines would take such a banner, which counts
 * no test, for the close of a run that executed none.
 */
function lastLines(text: string, count: number): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^=+\s*(.*?)\s+in ([\d.]+)s\s*=+$/, 'schemathesis: $1 ($2 s)'))
    .filter((line) => !/^=+$/.test(line.trim()))
    .slice(-count)
    .join('\n');
}

async function schemathesis(
  st: string,
  engine: TestEngine,
  caller: Caller,
  siteId: string,
  filter: string[],
  name: string,
  logDir: string,
): Promise<RunResult> {
  const headers = caller.client?.cookie
    ? ['-H', `Cookie: ${caller.client.cookie}`, '-H', `X-CSRF-Token: ${caller.client.csrf ?? ''}`]
    : [];
  const args = [
    '--config-file',
    join(here, 'schemathesis.toml'),
    'run',
    `${engine.url}/api/v1/openapi.json`,
    '--url',
    engine.url,
    '--checks',
    CHECKS.join(','),
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    MAX_EXAMPLES,
    '--seed',
    SEED,
    // One worker: two raise KeyErrors inside schemathesis (4.32.5) now and then.
    '--workers',
    '1',
    '--no-shrink',
    '--suppress-health-check',
    'all',
    ...headers,
    ...filter,
  ];
  const started = performance.now();
  const child = spawn(st, ['--no-color', ...args], {
    // schemathesis keeps a cache folder in its working directory: the run's scratch folder, not the tree.
    cwd: logDir,
    env: {
      ...process.env,
      SCHEMATHESIS_HOOKS: 'hooks',
      PYTHONPATH: here,
      RAMPART_ROLE: caller.role,
      RAMPART_SITE_ID: siteId,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  const seconds = (performance.now() - started) / 1000;
  await writeFile(join(logDir, `${name}.log`), output);
  const ok = code === 0;
  process.stdout.write(`\n=== ${name}: ${ok ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s\n`);
  process.stdout.write((ok ? lastLines(output, 3) : output) + '\n');
  return { name, ok, seconds, summary: lastLines(output, 1) };
}

async function main(): Promise<number> {
  const python = securityPython();
  const st = join(dirname(python), 'st');
  const logDir = process.env.SECURITY_REPORT_DIR ?? (await mkdtemp(join(tmpdir(), 'rampart-security-')));
  await mkdir(logDir, { recursive: true });
  const started = performance.now();
  const engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  const results: RunResult[] = [];
  try {
    const admin = new ApiClient(engine.url);
    if ((await admin.setup('admin@example.com', PASSWORD)).status !== 201)
      throw new Error('test:security: setup failed');
    const callers: Caller[] = [
      { role: 'anonymous', client: undefined },
      { role: 'guest', client: await accountWithRole(engine, admin, 'guest') },
      { role: 'user', client: await accountWithRole(engine, admin, 'user') },
      { role: 'administrator', client: admin },
    ];
    const site = await admin.request<{ id: string }>('POST', '/sites', {
      name: 'Security run',
      domain: 'security.example.com',
      accessMethod: 'plugin',
    });
    const siteId = site.status === 201 ? site.body.id : '';
    if (!siteId) process.stdout.write(`test:security: no site for site-scoped calls (${site.status} ${site.text})\n`);
    for (const caller of callers) {
      // Signing out ends the run's session, so it runs alone, after everything else of that caller.
      // The live tail is a stream that stays open: a request to it would only end at the client's timeout.
      const exclude = [
        ...(caller.client ? ['--exclude-operation-id', 'signOut'] : []),
        '--exclude-operation-id',
        'tailLogs',
      ];
      results.push(await schemathesis(st, engine, caller, siteId, exclude, caller.role, logDir));
      if (caller.client) {
        const only = ['--include-operation-id', 'signOut'];
        results.push(await schemathesis(st, engine, caller, siteId, only, `${caller.role}-sign-out`, logDir));
      }
    }
  } finally {
    await engine.dispose();
    if (!process.env.SECURITY_REPORT_DIR) await rm(logDir, { recursive: true, force: true });
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  process.stdout.write(`\ntest:security: ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
  for (const r of results)
    process.stdout.write(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds.toFixed(0)} s): ${r.summary}\n`);
  process.stdout.write(`security: ${passed} passed, ${failed} failed\n`);
  await recordTally('security', { passed, failed, skipped: 0 });
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
