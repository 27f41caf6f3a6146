// Import checks that ESLint's plugins cannot do here (their native resolver is not installable from
// this registry): no import cycles anywhere in engine/, electron/ and renderer/, and engine modules
// import each other only through their index (`#engine/<module>`). Exit code 1 on any finding.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const ROOTS = ['engine', 'electron', 'renderer/src', 'renderer/i18n'];
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
      if (spec.startsWith('.') || spec.startsWith('#'))
        problems.push(`${relative(ROOT, file)}: cannot resolve "${spec}"`);
      continue;
    }
    edges.add(target);
    const [fromTop, fromModule] = relative(ROOT, file).split(sep);
    const [toTop, toModule, ...rest] = relative(ROOT, target).split(sep);
    if (
      fromTop === 'engine' &&
      toTop === 'engine' &&
      rest.length > 0 &&
      fromModule !== toModule &&
      !spec.startsWith('#engine/')
    ) {
      problems.push(`${relative(ROOT, file)}: imports "${spec}" inside another module; use #engine/${toModule}`);
    }
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
console.log(`check-imports: ${all.length} files, no import cycles, module boundaries kept`);
