import { mkdir, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { Lru, RampartError, type Clock, type Logger } from '#engine/shared';
import type { ConfigSlice, RuleSetSourceRecord } from '#engine/config-store';
import { createWaf, type GroupId, type Waf, type WafSettings } from '#engine/waf';
import {
  attributableRuleIds,
  countGroupLevels,
  detectRuleSetDir,
  DEBIAN_LOCATION,
  extractArchive,
  loadRuleSet,
  ruleLevels,
  type GroupLevelCount,
  type InstalledRuleSet,
  type LoadOptions,
  type RuleLevel,
  type RuleSet,
  type ProblemParams,
  parseSecLang,
} from '#engine/waf';
import { checkReleaseContent, downloadRelease, shownUrl, type RuleSetDownloadFailure } from './crs-fetch.ts';
import {
  CRS_RELEASE_PINS,
  crsArchiveName,
  crsDownloadUrl,
  DEFAULT_CRS_DOWNLOAD_URL,
  type CrsPin,
  type CrsPins,
} from './crs-releases.ts';

/**
 * A rule-set problem: `code` (the WAF's parse, load or archive codes, or this module's
 * `no_rule_set_found`, `no_rules_folder`, `no_scoring_rules`, `load_failed`) and `params` say what
 * it is for a console; `message` says it in English for logs.
 */
export interface RuleSetProblem {
  file: string;
  line: number;
  message: string;
  code: string;
  params: ProblemParams;
}

export interface RuleSetStatus {
  state: 'loaded' | 'missing';
  source: 'configured' | 'detected' | 'uploaded' | null;
  /** Directory of the loaded set. */
  dir: string | null;
  /** What the operator set (null: auto-detect, or an uploaded archive). */
  configuredDir: string | null;
  version: string | null;
  /** Scoring rules of the 12 groups, all levels. */
  ruleCount: number;
  loadedAt: number | null;
  /** Rules left out when the set was compiled; the rest runs. */
  problems: RuleSetProblem[];
  /** The last load that failed; the previous set kept running. */
  lastError: {
    message: string;
    file: string | null;
    line: number | null;
    at: number;
    code: string;
    params: ProblemParams;
  } | null;
  /** The last download of a CRS release (null: none since the engine started). */
  download: RuleSetDownloadJob | null;
}

/** Why a download did not install: the console words each code itself; `message` is the engine's English. */
export type { RuleSetDownloadFailure, RuleSetDownloadFailureCode } from './crs-fetch.ts';

export interface RuleSetDownloadJob {
  version: string;
  /** Where it is fetched from (any user:password part left out). */
  url: string;
  state: 'downloading' | 'installing' | 'installed' | 'failed';
  receivedBytes: number;
  /** What the server announced; null when it did not say. */
  totalBytes: number | null;
  startedAt: number;
  finishedAt: number | null;
  failure: RuleSetDownloadFailure | null;
}

export interface RuleSetDownloadSettings {
  /** Address with `{version}` placeholders; the CRS project's GitHub releases by default. */
  urlTemplate?: string;
  /** Certificate authorities (PEM) trusted besides the system's, for an internal mirror. */
  extraCa?: string | undefined;
  /** Version -> SHA-256 of its minimal archive; the repository's pins by default (tests bring their own). */
  pins?: CrsPins;
  idleTimeoutMs?: number;
}

/** A loaded, compiled rule set. WAF instances are compiled per set of disabled groups. */
export interface LoadedRuleSet {
  readonly generation: number;
  readonly ruleSet: RuleSet;
  readonly levels: readonly RuleLevel[];
  readonly counts: readonly GroupLevelCount[];
  /** Rule id -> its level record (12 groups only). */
  readonly byId: ReadonlyMap<string, RuleLevel>;
  /**
   * Rules the access log names when they match: the 12 groups' rules, ModSecurity's recommended
   * 200002 / 200003, and every other rule that scores or blocks by itself (911100 method not
   * allowed, ...), whatever file holds it.
   */
  readonly named: ReadonlySet<string>;
  /** A WAF with these CRS groups (file numbers) switched off; compiles one not built yet (a few hundred ms). */
  wafFor(disabled: readonly GroupId[]): Waf;
  /** How many WAFs were compiled from this set so far (the all-groups one included). */
  readonly compilations: number;
}

export interface RuleSetManagerDeps {
  /** Where the rule set comes from. */
  store: ConfigSlice<'ruleSet'>;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** Settings every compiled WAF gets (body limit, compatibility log). */
  waf: Pick<WafSettings, 'requestBodyLimit' | 'requestBodyLimitAction' | 'compatibilityLog'>;
  /** Where auto-detection looks; Debian / Ubuntu's location by default. */
  detect?: () => InstalledRuleSet | null;
  /** Downloads of CRS releases ("get CRS v4"). */
  download?: RuleSetDownloadSettings;
}

const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
const DOWNLOAD_IDLE_TIMEOUT_MS = 30_000;
/** Compiled rule sets kept for combinations of switched-off groups, besides the all-groups one. */
const PARTIAL_SETS_KEPT = 4;

/**
 * What ModSecurity's recommended configuration adds in front of CRS, so a body that cannot be parsed
 * (JSON, XML, urlencoded, multipart) or fails multipart's strict checks is refused as there
 * (rule ids 200002 and 200003, ModSecurity's). Content-type selection of the JSON and XML body
 * processors (its 200000 and 200001) is built into the WAF.
 */
const RECOMMENDED = [
  'SecRule REQBODY_ERROR "!@eq 0" "id:200002,phase:2,t:none,log,deny,status:400,msg:\'Request body could not be parsed\',logdata:\'%{reqbody_error_msg}\',severity:2"',
  'SecRule MULTIPART_STRICT_ERROR "!@eq 0" "id:200003,phase:2,t:none,log,deny,status:400,msg:\'Multipart request body failed strict validation\',severity:2"',
].join('\n');
export const RECOMMENDED_FILE = '<rampart>/modsecurity-recommended.conf';
/** Rule ids outside the 12 groups that still count as basic rules in the access log. */
export const RECOMMENDED_IDS: ReadonlySet<string> = new Set(['200002', '200003']);

/** How messages name a set: by the folder an operator gave, not by where the engine unpacked an upload. */
function labelOf(record: RuleSetSourceRecord): string {
  return record.source === 'uploaded' ? 'the uploaded rule set' : (record.dir ?? DEBIAN_LOCATION.dir);
}

/** A rule set's folder in a message becomes relative: `<root>/rules/x.conf` -> `rules/x.conf`. */
function hidePaths(text: string, root: string): string {
  return text.split(root.endsWith(sep) ? root : root + sep).join('');
}

/** The same for each text parameter of a problem. */
function hideParamPaths(params: ProblemParams, root: string): ProblemParams {
  return Object.fromEntries(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? hidePaths(v, root) : v]),
  );
}

/** Where a set without rules came from, for a console to name it: a folder, or an upload. */
function sourceParams(record: RuleSetSourceRecord): ProblemParams {
  return record.source === 'uploaded' ? { source: 'uploaded' } : { source: 'dir', dir: labelOf(record) };
}

class LoadFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly params: ProblemParams,
    readonly file: string | null = null,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

/**
 * The Core Rule Set the engine runs: auto-detected, an operator's directory or an uploaded release
 * archive. A new set replaces the running one only once it has loaded and compiled; a broken one is
 * reported with file and line and the previous set keeps running.
 */
export class RuleSetManager {
  readonly #deps: RuleSetManagerDeps;
  #current: LoadedRuleSet | null = null;
  #source: RuleSetStatus['source'] = null;
  #dir: string | null = null;
  #loadedAt: number | null = null;
  #problems: RuleSetProblem[] = [];
  #lastError: RuleSetStatus['lastError'] = null;
  #generation = 0;
  #download: RuleSetDownloadJob | null = null;
  #busy: Promise<unknown> = Promise.resolve();
  readonly #listeners: ((loaded: LoadedRuleSet) => void)[] = [];

  constructor(deps: RuleSetManagerDeps) {
    this.#deps = deps;
  }

  get current(): LoadedRuleSet | null {
    return this.#current;
  }

  /**
   * Called, synchronously, each time a new set has been installed: a listener builds what it derives
   * from the set before any verdict can use the new one.
   */
  onInstalled(listener: (loaded: LoadedRuleSet) => void): void {
    this.#listeners.push(listener);
  }

  /** Loads the configured source at start-up; a failure leaves no rule set and is reported in status. */
  async start(): Promise<void> {
    const record = this.#deps.store.data.ruleSet;
    try {
      await this.#install(record);
    } catch (error) {
      this.#fail(error);
      this.#deps.logger.warn(
        { err: error, source: record.source, dir: record.dir },
        'the Core Rule Set could not be loaded',
      );
    }
  }

  status(): RuleSetStatus {
    const record = this.#deps.store.data.ruleSet;
    const current = this.#current;
    return {
      state: current ? 'loaded' : 'missing',
      source: current ? this.#source : null,
      dir: current ? this.#dir : null,
      configuredDir: record.source === 'dir' ? record.dir : null,
      version: current ? current.ruleSet.version || null : null,
      ruleCount: current ? current.counts.reduce((n, c) => n + c.enabled[3], 0) : 0,
      loadedAt: current ? this.#loadedAt : null,
      problems: current ? this.#problems : [],
      lastError: this.#lastError,
      download: this.#download ? { ...this.#download } : null,
    };
  }

  /** Use a directory (null: auto-detect). Throws VALIDATION_FAILED (field dir) and keeps the running set when it cannot load. */
  useDir(dir: string | null): Promise<RuleSetStatus> {
    return this.#serial(async () => {
      // A relative path would depend on the engine's working directory (and echo it).
      if (dir !== null && !isAbsolute(dir)) {
        throw new RampartError(
          'VALIDATION_FAILED',
          'dir: must be an absolute path (for example /usr/share/modsecurity-crs)',
          { field: 'dir' },
        );
      }
      const record: RuleSetSourceRecord =
        dir === null ? { source: 'auto', dir: null } : { source: 'dir', dir: resolve(dir) };
      try {
        await this.#install(record);
      } catch (error) {
        throw this.#refuse(error, 'dir');
      }
      await this.#deps.store.update((doc) => {
        doc.ruleSet = record;
      });
      return this.status();
    });
  }

  /** Installs a CRS release archive (.tar.gz / .tgz / .zip) into the data directory and runs it. */
  upload(fileName: string, content: Buffer): Promise<RuleSetStatus> {
    return this.#serial(async () => {
      if (content.length === 0)
        throw new RampartError('VALIDATION_FAILED', 'contentBase64: the archive is empty', {
          field: 'contentBase64',
          params: { code: 'too_small', origin: 'string', minimum: 1 },
        });
      if (content.length > MAX_UPLOAD_BYTES) {
        throw new RampartError(
          'PAYLOAD_TOO_LARGE',
          `contentBase64: the archive must be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`,
          {
            field: 'contentBase64',
          },
        );
      }
      await this.#installArchive(fileName, content, 'upload', 'fileName');
      return this.status();
    });
  }

  /**
   * Starts fetching CRS `version`'s minimal release archive; its progress and outcome show in
   * status().download. Throws VALIDATION_FAILED (field version) for a version without a verified
   * pinned SHA-256. While a download runs, asking again returns it.
   */
  download(version: string): RuleSetDownloadJob {
    const settings = this.#deps.download ?? {};
    const pins = settings.pins ?? CRS_RELEASE_PINS;
    if (!Object.hasOwn(pins, version)) {
      throw new RampartError(
        'VALIDATION_FAILED',
        `version: CRS ${version} is not offered for download (offered: ${Object.keys(pins).join(', ')})`,
        { field: 'version', params: { version } },
      );
    }
    const pin = pins[version];
    if (!pin) {
      throw new RampartError(
        'VALIDATION_FAILED',
        `version: no verified SHA-256 is pinned for CRS ${version} in this build, so it is not downloaded; upload ${crsArchiveName(version)} instead`,
        { field: 'version', params: { version } },
      );
    }
    const running = this.#download;
    if (running && (running.state === 'downloading' || running.state === 'installing')) return { ...running };
    const url = crsDownloadUrl(settings.urlTemplate ?? DEFAULT_CRS_DOWNLOAD_URL, version);
    const job: RuleSetDownloadJob = {
      version,
      url: shownUrl(url),
      state: 'downloading',
      receivedBytes: 0,
      totalBytes: null,
      startedAt: this.#deps.clock.now(),
      finishedAt: null,
      failure: null,
    };
    this.#download = job;
    void this.#runDownload(job, url, pin, settings);
    return { ...job };
  }

  async #runDownload(
    job: RuleSetDownloadJob,
    url: string,
    pin: CrsPin,
    settings: RuleSetDownloadSettings,
  ): Promise<void> {
    const failed = (failure: RuleSetDownloadFailure): void => {
      job.state = 'failed';
      job.failure = failure;
      job.finishedAt = this.#deps.clock.now();
      this.#deps.logger.warn(
        { version: job.version, url: job.url, failure: failure.code },
        `CRS download failed: ${failure.message}`,
      );
    };
    try {
      const fetched = await downloadRelease({
        version: job.version,
        url,
        pin,
        extraCa: settings.extraCa,
        maxBytes: MAX_UPLOAD_BYTES,
        idleTimeoutMs: settings.idleTimeoutMs ?? DOWNLOAD_IDLE_TIMEOUT_MS,
        onProgress: (received, total) => {
          job.receivedBytes = received;
          job.totalBytes = total;
        },
      });
      if (!fetched.ok) {
        failed(fetched.error);
        return;
      }
      job.state = 'installing';
      // The unpacked files must be the release's, whatever the archive's bytes: checked before any of it runs.
      const refusal = await this.#serial(() =>
        this.#installArchive(crsArchiveName(job.version), fetched.value, 'download', 'version', (root) =>
          checkReleaseContent(root, job.version, pin),
        ),
      );
      if (refusal) {
        failed(refusal);
        return;
      }
      job.state = 'installed';
      job.finishedAt = this.#deps.clock.now();
    } catch (error) {
      failed({ code: 'refused', message: error instanceof Error ? error.message : String(error), params: {} });
    }
  }

  /**
   * Unpacks an archive into the data directory and runs it; whatever fails first, nothing of it
   * stays behind. `check` may refuse the unpacked files before they run (its refusal is returned).
   */
  async #installArchive(
    fileName: string,
    content: Buffer,
    prefix: string,
    field: string,
    check?: (root: string) => Promise<RuleSetDownloadFailure | null>,
  ): Promise<RuleSetDownloadFailure | null> {
    const base = join(this.#deps.dataDir, 'rule-sets');
    await mkdir(base, { recursive: true, mode: 0o700 });
    const folder = `${prefix}-${this.#deps.clock.now()}`;
    const target = join(base, folder);
    try {
      const extracted = await extractArchive(content, fileName, target);
      if (!extracted.ok) throw new LoadFailure(extracted.error, extracted.code, extracted.params);
      const refusal = check ? await check(extracted.value.root) : null;
      if (refusal) {
        await rm(target, { recursive: true, force: true });
        return refusal;
      }
      const record: RuleSetSourceRecord = { source: 'uploaded', dir: extracted.value.root };
      await this.#install(record);
      await this.#deps.store.update((doc) => {
        doc.ruleSet = record;
      });
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      throw this.#refuse(error, field);
    }
    // Earlier archives are no longer needed once the new one runs.
    for (const name of await readdir(base)) {
      if (name !== folder) await rm(join(base, name), { recursive: true, force: true });
    }
    return null;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#busy.then(work, work);
    this.#busy = next.catch(() => undefined);
    return next;
  }

  async #install(record: RuleSetSourceRecord): Promise<void> {
    const found = this.#locate(record);
    const label = labelOf(record);
    const ruleSet = await loadRuleSet(found.dir, found.options);
    const shown = (file: string): string => hidePaths(ruleSet.display(file), ruleSet.root);
    const first = ruleSet.problems[0];
    if (first) {
      const more = ruleSet.problems.length > 1 ? ` (and ${ruleSet.problems.length - 1} more)` : '';
      const file = shown(first.file);
      throw new LoadFailure(
        `${file}:${first.line}: ${hidePaths(first.message, ruleSet.root)}${more}`,
        first.code,
        { ...hideParamPaths(first.params, ruleSet.root), more: ruleSet.problems.length - 1 },
        file,
        first.line,
      );
    }
    const recommended = parseSecLang(RECOMMENDED, RECOMMENDED_FILE);
    ruleSet.directives.unshift(...recommended.directives);
    const levels = ruleLevels(ruleSet.directives);
    if (!levels.some((r) => r.scoring)) {
      throw new LoadFailure(
        `${label}: no Core Rule Set rule files (rules/REQUEST-9NN-*.conf) with scoring rules were found`,
        'no_scoring_rules',
        sourceParams(record),
      );
    }
    const settings = this.#deps.waf;
    // Compile the all-groups instance now: it proves the set compiles and most sites use it.
    const full = createWaf(ruleSet, settings);
    let compilations = 1;
    // Other combinations of switched-off groups are compiled on demand and kept in a small
    // recently-used cache (tens of MB each); a site holds on to its own instance anyway.
    const cache = new Lru<string, Waf>(PARTIAL_SETS_KEPT);
    const wafFor = (disabled: readonly GroupId[]): Waf => {
      if (disabled.length === 0) return full;
      const key = disabled.toSorted().join(',');
      let waf = cache.get(key);
      if (!waf) {
        waf = createWaf(ruleSet, {
          ...settings,
          groups: Object.fromEntries(disabled.map((g) => [g, { enabled: false }])),
        });
        compilations++;
        cache.set(key, waf);
      }
      return waf;
    };
    const byId = new Map(levels.map((r) => [r.id, r]));
    const named = attributableRuleIds(ruleSet.directives);
    for (const id of byId.keys()) named.add(id);
    for (const id of RECOMMENDED_IDS) named.add(id);
    const loaded: LoadedRuleSet = {
      generation: ++this.#generation,
      ruleSet,
      levels,
      counts: countGroupLevels(levels),
      byId,
      named,
      wafFor,
      get compilations() {
        return compilations;
      },
    };
    this.#current = loaded;
    this.#source = record.source === 'auto' ? 'detected' : record.source === 'dir' ? 'configured' : 'uploaded';
    this.#dir = found.dir;
    this.#loadedAt = this.#deps.clock.now();
    this.#problems = full.problems.map((p) => ({
      file: shown(p.file),
      line: p.line,
      message: hidePaths(p.message, ruleSet.root),
      code: p.code,
      params: hideParamPaths(p.params, ruleSet.root),
    }));
    this.#lastError = null;
    this.#deps.logger.info(
      { dir: found.dir, version: ruleSet.version, rules: full.ruleCount, leftOut: full.problems.length },
      'Core Rule Set loaded',
    );
    for (const listener of this.#listeners) {
      try {
        listener(loaded);
      } catch (error) {
        this.#deps.logger.error({ err: error }, 'a rule-set listener failed');
      }
    }
  }

  #locate(record: RuleSetSourceRecord): InstalledRuleSet {
    if (record.source === 'auto' || record.dir === null) {
      const found = (this.#deps.detect ?? (() => detectRuleSetDir()))();
      if (!found) {
        throw new LoadFailure(
          `No Core Rule Set found at ${DEBIAN_LOCATION.dir}: install the modsecurity-crs package, set a rule-set directory or upload a CRS release archive`,
          'no_rule_set_found',
          { dir: DEBIAN_LOCATION.dir },
        );
      }
      return found;
    }
    if (!existsSync(join(record.dir, 'rules'))) {
      throw new LoadFailure(
        `${labelOf(record)}: has no rules/ folder (expected a CRS release: crs-setup.conf.example and rules/*.conf)`,
        'no_rules_folder',
        sourceParams(record),
      );
    }
    if (resolve(record.dir) === DEBIAN_LOCATION.dir) {
      const debian = detectRuleSetDir();
      if (debian) return debian;
    }
    const options: LoadOptions = {};
    return { dir: record.dir, options };
  }

  #fail(error: unknown): LoadFailure {
    const message = error instanceof Error ? error.message : String(error);
    const failure = error instanceof LoadFailure ? error : new LoadFailure(message, 'load_failed', { error: message });
    this.#lastError = {
      message: failure.message,
      file: failure.file,
      line: failure.line,
      at: this.#deps.clock.now(),
      code: failure.code,
      params: failure.params,
    };
    return failure;
  }

  #refuse(error: unknown, field: string): RampartError {
    if (error instanceof RampartError) return error;
    const failure = this.#fail(error);
    const kept = this.#current ? ' The previous rule set keeps running.' : '';
    // The problem's own parameters first: the names below (where, what, whether the old set runs) win.
    return new RampartError(
      'VALIDATION_FAILED',
      `${field}: the rule set cannot be loaded: ${failure.message}.${kept}`,
      {
        field,
        params: {
          ...failure.params,
          reason: 'rule_set',
          problem: failure.code,
          kept: this.#current !== null,
          ...(failure.line === null ? {} : { file: failure.file ?? '', line: failure.line }),
        },
      },
    );
  }
}
