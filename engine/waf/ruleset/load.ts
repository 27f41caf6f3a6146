/**
 * Loading a rule-set directory: the setup file, optional files before, `rules/*.conf` in byte order
 * (REQUEST-9xx then RESPONSE-9xx, as CRS names them for), optional files after; `Include` and
 * `IncludeOptional` expanded in place, relative to the including file, with glob patterns; data
 * files of @pmFromFile / @ipMatchFromFile read beside the rule file that names them.
 *
 * Rule files and data files are read as latin1 so that every value is a binary string (one char per
 * byte, see ../types.ts). Failures never throw: they are problems with file and line (line 0 when
 * they concern a whole file or folder).
 *
 * Confinement: a rule set may come from an uploaded archive, so what its files name is untrusted.
 * Rule files, Includes (globs too) and data files are read only when their real path (symlinks
 * resolved) lies inside the rule-set folder, its rules folder, or the folder of a setup / before /
 * after file (Debian keeps those in /etc/modsecurity/crs). Those folders are the layout whoever
 * installed the set chose (a `rules` symlink included); names written inside rule files are not. Problem messages name paths
 * relative to the rule-set folder and never quote what a refused file holds.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { CompileEnv, Directive, ParseProblem, SourcePosition } from '../types.ts';
import { actionValue, parseSecLang } from '#engine/waf/seclang';

export interface LoadOptions {
  /**
   * The setup file loaded first. Absent: `<dir>/crs-setup.conf`, else `<dir>/crs-setup.conf.example`,
   * else none. `null`: none.
   */
  setupFile?: string | null;
  /** Loaded after the setup file, before the rules (Debian: REQUEST-900-EXCLUSION-RULES-BEFORE-CRS.conf). */
  before?: readonly string[];
  /** Loaded after the rules (Debian: RESPONSE-999-EXCLUSION-RULES-AFTER-CRS.conf). */
  after?: readonly string[];
}

export interface RuleSet {
  /** Every directive in load order, Includes expanded. */
  directives: Directive[];
  /** Every SecLang file read, in load order (absolute paths). */
  files: string[];
  /** Data file contents by absolute path (see `dataFilePath`): lines without blanks and `#` comments. */
  dataFiles: Map<string, string[]>;
  problems: ParseProblem[];
  /** `3.3.4`, `4.25.0`; empty when neither SecComponentSignature nor the setup file tells. */
  version: string;
  /** The rule-set folder (absolute). */
  root: string;
  /** A path as problem messages show it: relative to the rule-set folder when inside it. */
  display(path: string): string;
}

/** How deep Includes may nest before we call it a loop. */
const MAX_INCLUDE_DEPTH = 16;

const DATA_FILE_OPERATORS = new Set(['pmfromfile', 'pmf', 'ipmatchfromfile', 'ipmatchf']);

export async function loadRuleSet(dir: string, options: LoadOptions = {}): Promise<RuleSet> {
  const root = resolve(dir);
  const display = (path: string): string => displayPath(root, path);
  const rootStat = await stat(root).catch(() => null);
  if (!rootStat?.isDirectory()) {
    const problems: ParseProblem[] = [
      {
        file: root,
        line: 0,
        message: 'the rule-set folder does not exist or is not a folder',
        code: 'folder_missing',
        params: {},
      },
    ];
    return { directives: [], files: [], problems, dataFiles: new Map(), version: '', root, display };
  }

  const setup = options.setupFile === undefined ? defaultSetupFile(root) : options.setupFile;
  const chosen = [
    ...(setup ? [resolve(setup)] : []),
    ...(options.before ?? []).map((f) => resolve(f)),
    ...(options.after ?? []).map((f) => resolve(f)),
  ];
  const rulesDir = rulesFolder(root);
  const chosenReal = await Promise.all(chosen.map((f) => realpath(f).catch(() => f)));
  const state: LoadState = {
    directives: [],
    files: [],
    problems: [],
    roots: await confinementRoots([root, rulesDir, ...[...chosen, ...chosenReal].map((f) => dirname(f))]),
    display,
  };

  if (setup) await loadFile(resolve(setup), state, [], null);
  for (const file of options.before ?? []) await loadFile(resolve(file), state, [], null);

  const ruleFiles = (await readdir(rulesDir).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.conf'))
    .sort(byteOrder);
  if (!ruleFiles.some((f) => /^REQUEST-.*\.conf$/.test(f))) {
    state.problems.push({
      file: rulesDir,
      line: 0,
      message: `no REQUEST-*.conf rule files in ${display(rulesDir) || 'the rule-set folder'}`,
      code: 'no_rule_files',
      params: { folder: display(rulesDir) },
    });
  }
  for (const f of ruleFiles) await loadFile(join(rulesDir, f), state, [], null);
  for (const file of options.after ?? []) await loadFile(resolve(file), state, [], null);

  checkDuplicateIds(state.directives, state.problems, display);
  const dataFiles = await loadDataFiles(state.directives, state);
  return {
    directives: state.directives,
    files: state.files,
    problems: state.problems,
    dataFiles,
    version: detectVersion(state.directives),
    root,
    display,
  };
}

/** `rules/x.conf` for a path inside `root`, `.` for root itself; other paths as they are. */
function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

/** Each folder as written and as its real path (symlinks resolved), so either spelling is inside. */
async function confinementRoots(folders: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const folder of folders) {
    out.add(folder);
    const real = await realpath(folder).catch(() => null);
    if (real) out.add(real);
  }
  return [...out];
}

function inside(roots: readonly string[], path: string): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}

/** True when `path` names something whose real path is inside the confinement roots. */
async function confined(state: LoadState, path: string): Promise<boolean> {
  if (!inside(state.roots, path)) return false;
  const real = await realpath(path).catch(() => null);
  return real !== null && inside(state.roots, real);
}

/** `<dir>/rules` when it exists, else `dir` itself (a flat folder of REQUEST-*.conf files). */
function rulesFolder(root: string): string {
  const rules = join(root, 'rules');
  return existsSync(rules) && statSync(rules).isDirectory() ? rules : root;
}

function defaultSetupFile(root: string): string | null {
  for (const name of ['crs-setup.conf', 'crs-setup.conf.example']) {
    const path = join(root, name);
    if (existsSync(path)) return path;
  }
  return null;
}

interface LoadState {
  directives: Directive[];
  files: string[];
  problems: ParseProblem[];
  /** Folders files may be read from (see the module comment). */
  roots: string[];
  display(path: string): string;
}

async function loadFile(
  file: string,
  state: LoadState,
  stack: readonly string[],
  from: SourcePosition | null,
): Promise<void> {
  const where = { file: from?.file ?? file, line: from?.line ?? 0 };
  if (existsSync(file) && !(await confined(state, file))) {
    state.problems.push({
      ...where,
      message: `${state.display(file)} leads outside the rule-set folder (a symbolic link?) and was not read`,
      code: 'file_outside',
      params: { path: state.display(file) },
    });
    return;
  }
  let text: string;
  try {
    text = await readFile(file, 'latin1');
  } catch (cause) {
    const reason = cause instanceof Error && 'code' in cause ? String(cause.code) : 'unreadable';
    state.problems.push({
      ...where,
      message: `cannot read ${state.display(file)} (${reason})`,
      code: 'file_unreadable',
      params: { path: state.display(file), error: reason },
    });
    return;
  }
  state.files.push(file);
  const parsed = parseSecLang(text, file);
  state.problems.push(...parsed.problems);
  for (const d of parsed.directives) {
    if (d.kind === 'config' && (d.name === 'Include' || d.name === 'IncludeOptional')) {
      await include(d, state, [...stack, file]);
    } else {
      state.directives.push(d);
    }
  }
}

async function include(d: Directive & { kind: 'config' }, state: LoadState, stack: readonly string[]): Promise<void> {
  const optional = d.name === 'IncludeOptional';
  const arg = d.args[0];
  if (d.args.length !== 1 || !arg) {
    state.problems.push({
      file: d.file,
      line: d.line,
      message: `${d.name} takes one path, got ${d.args.length}`,
      code: 'include_arguments',
      params: { directive: d.name, count: d.args.length },
    });
    return;
  }
  if (stack.length >= MAX_INCLUDE_DEPTH) {
    state.problems.push({
      file: d.file,
      line: d.line,
      message: `${d.name} ${arg}: includes nest deeper than ${MAX_INCLUDE_DEPTH} (a loop?)`,
      code: 'include_too_deep',
      params: { directive: d.name, path: arg, max: MAX_INCLUDE_DEPTH },
    });
    return;
  }
  const pattern = resolve(dirname(d.file), arg);
  // Checked before any folder is listed: a pattern outside the rule set is not even expanded.
  if (!inside(state.roots, pattern)) {
    state.problems.push({
      file: d.file,
      line: d.line,
      message: `${d.name} ${arg}: outside the rule-set folder (only its own files can be included)`,
      code: 'include_outside',
      params: { directive: d.name, path: arg },
    });
    return;
  }
  const matches = hasGlob(pattern) ? await expandGlob(pattern) : existsSync(pattern) ? [pattern] : [];
  const files: string[] = [];
  let escaped = 0;
  for (const m of matches) {
    if (!(await confined(state, m))) {
      escaped++;
      continue;
    }
    const s = await stat(m).catch(() => null);
    if (s?.isDirectory()) {
      // Apache includes every file of a named folder.
      const inner = (await readdir(m)).sort(byteOrder).map((f) => join(m, f));
      for (const f of inner) {
        if (!(await confined(state, f))) escaped++;
        else if ((await stat(f).catch(() => null))?.isFile()) files.push(f);
      }
    } else if (s?.isFile()) {
      files.push(m);
    }
  }
  if (escaped > 0) {
    state.problems.push({
      file: d.file,
      line: d.line,
      message: `${d.name} ${arg}: ${escaped === 1 ? 'a match leads' : `${escaped} matches lead`} outside the rule-set folder (a symbolic link?) and ${escaped === 1 ? 'was' : 'were'} not read`,
      code: 'include_escapes',
      params: { directive: d.name, path: arg, count: escaped },
    });
  }
  if (files.length === 0 && !optional && !hasGlob(pattern)) {
    if (escaped === 0)
      state.problems.push({
        file: d.file,
        line: d.line,
        message: `Include ${arg}: no such file (${state.display(pattern)})`,
        code: 'include_missing',
        params: { directive: d.name, path: arg, resolved: state.display(pattern) },
      });
    return;
  }
  for (const f of files) {
    if (stack.includes(f)) {
      state.problems.push({
        file: d.file,
        line: d.line,
        message: `${d.name} ${arg}: ${state.display(f)} includes itself`,
        code: 'include_loop',
        params: { directive: d.name, path: arg, included: state.display(f) },
      });
      continue;
    }
    await loadFile(f, state, stack, { file: d.file, line: d.line });
  }
}

function hasGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

/** Expands `*`, `?` and `[...]` in any segment of an absolute path; results sorted per segment. */
async function expandGlob(pattern: string): Promise<string[]> {
  const segments = pattern.split(sep);
  let bases = [segments[0] === '' ? sep : (segments[0] ?? '')];
  for (const segment of segments.slice(1)) {
    if (segment === '') continue;
    const next: string[] = [];
    for (const base of bases) {
      if (!hasGlob(segment)) {
        const candidate = join(base, segment);
        if (existsSync(candidate)) next.push(candidate);
        continue;
      }
      const re = globSegment(segment);
      const names = await readdir(base).catch(() => [] as string[]);
      for (const name of names.sort(byteOrder))
        if (re.test(name) && !(name.startsWith('.') && !segment.startsWith('.'))) next.push(join(base, name));
    }
    bases = next;
  }
  return bases;
}

function globSegment(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] ?? '';
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = segment.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Byte order, as a C-locale `ls` or Apache's glob sorts: REQUEST-903.9001 before REQUEST-905. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkDuplicateIds(
  directives: readonly Directive[],
  problems: ParseProblem[],
  display: (path: string) => string,
): void {
  const seen = new Map<string, SourcePosition>();
  for (const d of directives) {
    if (d.kind !== 'rule' && d.kind !== 'action') continue;
    const id = actionValue(d.actions, 'id');
    if (id === undefined) continue;
    const first = seen.get(id);
    if (first)
      problems.push({
        file: d.file,
        line: d.line,
        message: `duplicate rule id ${id} (first at ${display(first.file)}:${first.line})`,
        code: 'duplicate_id',
        params: { id, firstFile: display(first.file), firstLine: first.line },
      });
    else seen.set(id, { file: d.file, line: d.line });
  }
}

/** Absolute path of a data file named by a rule at `from`: beside the rule file. */
export function dataFilePath(name: string, from: SourcePosition): string {
  return isAbsolute(name) ? name : resolve(dirname(from.file), name);
}

/** The CompileEnv over a loaded rule set's data files; throws for a file the loader did not read. */
export function dataFileReader(dataFiles: ReadonlyMap<string, string[]>): CompileEnv {
  return {
    readDataFile(name, from) {
      const path = dataFilePath(name, from);
      const lines = dataFiles.get(path);
      if (!lines) throw new Error(`data file ${name} was not loaded`);
      return lines;
    },
  };
}

async function loadDataFiles(directives: readonly Directive[], state: LoadState): Promise<Map<string, string[]>> {
  const problems = state.problems;
  const out = new Map<string, string[]>();
  const failed = new Set<string>();
  const visit = async (d: Directive): Promise<void> => {
    if (d.kind !== 'rule') return;
    if (DATA_FILE_OPERATORS.has(d.operator.name.toLowerCase())) {
      for (const name of d.operator.argument.trim().split(/\s+/)) {
        if (name === '') continue;
        if (/^https?:\/\//i.test(name)) {
          problems.push({
            file: d.file,
            line: d.line,
            message: `@${d.operator.name} ${name}: remote data files are not supported`,
            code: 'data_file_remote',
            params: { operator: d.operator.name, dataFile: name },
          });
          continue;
        }
        const path = dataFilePath(name, d);
        if (out.has(path) || failed.has(path)) continue;
        // Outside the folder is refused before looking, so the answer tells nothing about the host.
        if (!inside(state.roots, path) || (existsSync(path) && !(await confined(state, path)))) {
          failed.add(path);
          problems.push({
            file: d.file,
            line: d.line,
            message: `@${d.operator.name}: data file ${name} lies outside the rule-set folder and was not read`,
            code: 'data_file_outside',
            params: { operator: d.operator.name, dataFile: name },
          });
          continue;
        }
        try {
          out.set(path, dataLines(await readFile(path, 'latin1')));
        } catch {
          failed.add(path);
          problems.push({
            file: d.file,
            line: d.line,
            message: `@${d.operator.name}: data file ${name} not found beside the rule file (${state.display(path)})`,
            code: 'data_file_missing',
            params: { operator: d.operator.name, dataFile: name, path: state.display(path) },
          });
        }
      }
    }
    if (d.chained) await visit(d.chained);
  };
  for (const d of directives) await visit(d);
  return out;
}

/** Data file lines as ModSecurity reads them: CR stripped, blank lines and `#` comments skipped. */
export function dataLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    out.push(line);
  }
  return out;
}

/** From `SecComponentSignature "OWASP_CRS/3.3.4"`, else `setvar:tx.crs_setup_version=334`. */
export function detectVersion(directives: readonly Directive[]): string {
  for (const d of directives) {
    if (d.kind === 'config' && d.name === 'SecComponentSignature') {
      const m = /OWASP_CRS\/v?(\d+\.\d+\.\d+)/i.exec(d.args.join(' '));
      if (m?.[1]) return m[1];
    }
  }
  for (const d of directives) {
    if (d.kind !== 'action' && d.kind !== 'rule') continue;
    for (const a of d.actions) {
      const m = a.name === 'setvar' ? /^tx\.crs_setup_version=(\d{3,4})$/i.exec(a.value ?? '') : null;
      const digits = m?.[1];
      if (digits) return `${digits[0]}.${String(Number(digits.slice(1, -1)))}.${digits.slice(-1)}`;
    }
  }
  return '';
}
