// `npm start`: builds whatever is missing or older than its sources, then runs the engine in the
// foreground with the CLI flags given after `--` (e.g. `npm start -- --console-port 9090`).
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { engineEnvironment } from './engine-allocator.mjs';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((s) => existsSync(s) && newest(s) > built);
}

function run(script) {
  const result = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// A wrong RAMPART_ALLOCATOR stops us before any build is spent.
let environment;
try {
  environment = engineEnvironment();
} catch (error) {
  console.error(error.message);
  process.exit(78);
}

if (stale('dist/engine/main.js', ['engine'])) run('build:engine');
if (stale('dist/renderer/index.html', ['renderer'])) run('build:renderer');

const { flags } = JSON.parse(readFileSync('scripts/engine-node-flags.json', 'utf8'));
const engine = spawn(
  process.execPath,
  ['--enable-source-maps', ...flags, 'dist/engine/main.js', ...process.argv.slice(2)],
  { stdio: 'inherit', env: environment.env },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => engine.kill(signal));
engine.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// Under `npm start` our parent is the shell npm runs the script in. `kill <npm's pid>` (a script
// stopping what it started in the background) reaches that shell, which dies without passing the
// signal on: we are orphaned, and the engine would keep its ports and data folder. So when npm's
// shell is gone, stop the engine as if it had been sent SIGTERM. (Run directly, e.g. under nohup,
// the engine outlives the shell that started it, as before.)
if (process.env.npm_lifecycle_event === 'start') {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    engine.kill('SIGTERM');
  }, 500);
  watch.unref();
}
