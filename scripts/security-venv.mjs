#!/usr/bin/env node
// Creates (or brings up to date) the project-local Python virtualenv node_modules/.cache/security-venv
// (inside node_modules so git, ESLint and Prettier already leave it alone) holding the
// pinned tools of tests/security/requirements.txt (schemathesis, openapi-spec-validator), with
// whatever `python3` the machine has (PYTHON overrides it; Debian needs the python3-venv package).
// Prints the virtualenv's python on stdout. A stamp of the requirements' hash skips the install
// when nothing changed, so tests can call this every time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, 'node_modules', '.cache', 'security-venv');
const requirements = join(root, 'tests', 'security', 'requirements.txt');
const stampFile = join(venv, '.requirements-sha256');
const python = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new Error(`security-venv: cannot run ${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`security-venv: ${command} ${args.join(' ')} exited with ${result.status}`);
}

const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
if (current !== wanted || !existsSync(python)) {
  const base = process.env.PYTHON ?? 'python3';
  rmSync(venv, { recursive: true, force: true });
  process.stderr.write(`security-venv: creating ${venv} with ${base}\n`);
  try {
    run(base, ['-m', 'venv', venv]);
  } catch (error) {
    rmSync(venv, { recursive: true, force: true });
    throw new Error(`${error.message}\n(on Debian: apt-get install python3-venv)`, { cause: error });
  }
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', requirements]);
  writeFileSync(stampFile, wanted + '\n');
}
process.stdout.write(python + '\n');
