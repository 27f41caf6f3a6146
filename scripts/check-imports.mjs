// Import checks that ESLint's plugins cannot do here (their native resolver is not installable from
// this registry). Exit code 1 on any finding, each printed as `file: what is wrong`.
//
// - No import cycles anywhere in engine/, electron/ and renderer/.
// - The module map: code outside an engine module imports only its index (`#engine/<module>`), never
//   a file or a sub-module inside it (`#engine/waf/ruleset`); inside a module, relative imports.
// - The console imports no engine code but the API contracts (`engine/api/contracts/`).
// - The console's component tiers: `components/shared/` imports no domain component and no view;
//   `components/<domain>/` imports shared components and its own domain, no other domain and no view;
//   `lib/` imports no component and no view.
// - The gateway packages (`gateways/<name>/`) are shipped to customers alone: they import Node's
//   built-ins (`node:`) and their own files, no package and nothing of the engine.
//
// Usage: node scripts/check-imports.mjs [--root DIR]   (DIR defaults to the repository; tests use a
// temporary tree).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const rootFlag = process.argv.indexOf('--root');
const ROOT = rootFlag === -1 ? resolve(import.meta.dirname, '..') : resolve(process.argv[rootFlag + 1] ?? '.');
const ROOTS = ['engine', 'electron', 'renderer/src', 'renderer/i18n', 'gateways'];
const ALIASES = {
  '$lib/': 'renderer/src/lib/',
  '$components/': 'renderer/src/components/',
  '$views/': 'renderer/src/views/',
  '$i18n/': 'renderer/i18n/',
};
const EXTENSIONS = ['', '.ts', '.svelte.ts', '.svelte', '/index.ts'];
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function files(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(ts|svelte)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function resolveImport(from, spec) {
  let base;
  if (spec.startsWith('#engine/')) base = join(ROOT, 'engine', spec.slice('#engine/'.length), 'index.ts');
  else if (spec.startsWith('.')) base = resolve(dirname(from), spec);
  else {
    const alias = Object.keys(ALIASES).find((a) => spec.startsWith(a));
    if (!alias) return null; // a package
    base = join(ROOT, ALIASES[alias], spec.slice(alias.length));
  }
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** What a file is, for the rules: its top folder and, in engine/ and the console, its part. */
function placeOf(path) {
  const parts = relative(ROOT, path).split(sep);
  if (parts[0] === 'engine') {
    // engine/main.ts and other root files belong to no module.
    return { top: 'engine', module: parts.length > 2 ? parts[1] : null, rest: parts.slice(2) };
  }
  if (parts[0] === 'gateways') return { top: 'gateways', module: parts[1] ?? null };
  if (parts[0] === 'renderer') {
    if (parts[1] === 'i18n') return { top: 'renderer', tier: 'i18n' };
    if (parts[2] === 'components') {
      const domain = parts.length > 4 ? parts[3] : null;
      return { top: 'renderer', tier: domain === 'shared' ? 'shared' : 'domain', domain };
    }
    if (parts[2] === 'views') return { top: 'renderer', tier: 'views' };
    if (parts[2] === 'lib') return { top: 'renderer', tier: 'lib' };
    return { top: 'renderer', tier: 'app' };
  }
  return { top: parts[0] };
}

function boundaryProblem(file, spec, target) {
  const from = placeOf(file);
  const to = placeOf(target);
  const here = relative(ROOT, file);
  if (from.top === 'gateways' && (to.top !== 'gateways' || to.module !== from.module)) {
    return `${here}: imports "${spec}" from outside its package; a gateway package is shipped alone`;
  }
  if (from.top === 'engine' && to.top === 'engine' && to.module !== null && from.module !== to.module) {
    const isIndex = to.rest.length === 1 && to.rest[0] === 'index.ts';
    if (!isIndex) return `${here}: imports "${spec}" from inside module ${to.module}; import #engine/${to.module}`;
  }
  if (from.top === 'renderer' && to.top === 'engine') {
    const path = relative(ROOT, target).split(sep).join('/');
    if (!path.startsWith('engine/api/contracts/')) {
      return `${here}: the console imports engine code "${spec}"; it may import only engine/api/contracts`;
    }
  }
  if (from.top === 'renderer' && to.top === 'renderer') {
    if (from.tier === 'lib' && (to.tier === 'shared' || to.tier === 'domain' || to.tier === 'views')) {
      return `${here}: lib/ imports the component or view "${spec}"`;
    }
    if ((from.tier === 'shared' || from.tier === 'domain') && to.tier === 'views') {
      return `${here}: a component imports the view "${spec}"`;
    }
    if (from.tier === 'shared' && to.tier === 'domain') {
      return `${here}: a shared component imports the ${to.domain} component "${spec}"`;
    }
    if (from.tier === 'domain' && to.tier === 'domain' && from.domain !== to.domain) {
      return `${here}: a ${from.domain} component imports the ${to.domain} component "${spec}"; move what both need to components/shared`;
    }
  }
  return null;
}

const all = ROOTS.flatMap((r) => files(join(ROOT, r)));
const graph = new Map();
const problems = [];
for (const file of all) {
  const text = readFileSync(file, 'utf8');
  const edges = new Set();
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    const target = resolveImport(file, spec);
    if (!target) {
      if (placeOf(file).top === 'gateways' && !spec.startsWith('node:') && !spec.startsWith('.')) {
        problems.push(
          `${relative(ROOT, file)}: imports the package "${spec}"; a gateway package uses Node's built-ins only`,
        );
        continue;
      }
      if (spec.startsWith('.') || spec.startsWith('#'))
        problems.push(`${relative(ROOT, file)}: cannot resolve "${spec}"`);
      continue;
    }
    edges.add(target);
    const problem = boundaryProblem(file, spec, target);
    if (problem) problems.push(problem);
  }
  graph.set(file, edges);
}

// Tarjan's strongly connected components: every component with more than one file is a cycle.
let index = 0;
const stack = [];
const state = new Map();
function visit(node) {
  const s = { index, low: index, onStack: true };
  state.set(node, s);
  index++;
  stack.push(node);
  for (const next of graph.get(node) ?? []) {
    if (!graph.has(next)) continue;
    const t = state.get(next);
    if (!t) {
      visit(next);
      s.low = Math.min(s.low, state.get(next).low);
    } else if (t.onStack) s.low = Math.min(s.low, t.index);
  }
  if (s.low === s.index) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(relative(ROOT, member));
    } while (member !== node);
    if (component.length > 1) problems.push(`import cycle: ${component.toSorted().join(' <-> ')}`);
  }
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`check-imports: ${problems.length} problem(s) in ${all.length} files`);
  process.exit(1);
}
console.log(`check-imports: ${all.length} files, no import cycles, module boundaries and component tiers kept`);
