import {
  MINUTE,
  PROTECTION_LEVELS,
  RampartError,
  newId,
  WAF_EXCLUSION_LIMITS,
  type Clock,
  type ContentTypesInput,
  type CustomRuleInput,
  type ErrorParams,
  type Random,
  type WafExclusionInput,
} from '#engine/shared';
import type {
  ConfigSlice,
  CustomRuleCondition,
  CustomRuleRecord,
  ProtectionLevel,
  RuleGroupSetting,
  SiteBasicRulesRecord,
  WafExclusionRecord,
} from '#engine/config-store';
import type { CompiledSite } from '#engine/sites';
import { NO_PROBE, NO_WAF_MATCH, pathOf, type ProbeSignal, type RequestFacts, type WafOutcome } from '#engine/verdict';
import {
  compileCustomRules,
  PAIR_LOCATIONS,
  patternIssue,
  PLUGIN_LOCATIONS,
  type ConditionLocation,
  type CustomRuleMatcher,
  type GroupId,
  type LevelProfile,
  requestExclusions,
  type RequestExclusions,
  type Waf,
} from '#engine/waf';
import {
  RULE_GROUPS,
  type MatchedRule,
  type RuleGroup,
  type WafOutcome as WafEngineOutcome,
  type WafResponse,
  type WafTransaction,
} from '#engine/waf';
import { RECOMMENDED_IDS, type RuleSetManager } from './rule-set-manager.ts';
import {
  contentTypePolicy,
  DEFAULT_ALLOWED_CONTENT_TYPES,
  proposeFor,
  SiteExclusions,
  type ExclusionSpec,
} from './exclusions.ts';
import { clientHeaders, customRequest, wafRequest } from './request-view.ts';
import { LearnedNormal, paramOf, requestParams, type LearnedFit } from './learned-normal.ts';
import { BlockHistory, DEFAULT_THRESHOLD, opinionText, RequestRate, weigh } from './second-opinion.ts';
import { checkAtNormal, levelCheckText } from './confirmation.ts';
import { SiteClients } from './site-clients.ts';

const paranoiaOf = (level: ProtectionLevel): number => PROTECTION_LEVELS.indexOf(level) + 1;

export const GROUP_IDS = RULE_GROUPS.map((g) => g.id);

/** How long a plugin-access client is denied after a basic rule fired (spec 9). */
export const WAF_DENIAL_MS = MINUTE;
const MAX_DENIALS = 100_000;
export const MAX_CUSTOM_RULES = 200;

export const DEFAULT_GROUP: RuleGroupSetting = Object.freeze({ enabled: true, level: 'loose' });

export interface BasicRuleGroupView {
  id: string;
  name: string;
  /** The CRS rule file number. */
  file: number;
  enabled: boolean;
  level: ProtectionLevel;
  /** Rules its level enables. */
  enabledRuleCount: number;
  /** Rules of the group at all levels. */
  ruleCount: number;
}

export interface GroupRuleView {
  id: number;
  message: string;
  level: 1 | 2 | 3 | 4;
  /** The group's level enables it and no exclusion switched it off on every path. */
  enabled: boolean;
  /** The exclusion that switched it off for the whole site, if one did. */
  switchedOff: { exclusionId: string; reason: string } | null;
}

/** A site's exclusion as the console lists it, with the rule's message when the running set has it. */
export interface WafExclusionView extends WafExclusionRecord {
  ruleMessage: string | null;
}

/** The request content types a site allows: its own list, or Rampart's default. */
export interface ContentTypesView {
  types: string[];
  isDefault: boolean;
  defaults: string[];
}

export interface CustomRuleView extends CustomRuleRecord {
  attackType: 'custom';
  direction: 'request';
}

export interface BasicRulesServiceDeps {
  /** The sites and their basic rules: what the runtimes are built from. */
  store: ConfigSlice<'sites' | 'basicRules'>;
  clock: Clock;
  random: Random;
  ruleSets: RuleSetManager;
  /** The WAF's compatibility log, which also records CRS's X-CRS-Test marker requests (for go-ftw). */
  compatibilityLog?: ((line: string) => void) | undefined;
}

/**
 * What one site runs. Built off the verdict path: when the site's basic rules are saved, when a rule
 * set is installed, and in the background after another configuration write changed what it is
 * built from; a verdict only reads it.
 */
interface SiteRuntime {
  /** What it was built from: the site's basic-rules record and access method (see runtimeKey). */
  key: string;
  /** The rule set's generation (0: none loaded). */
  generation: number;
  waf: Waf | null;
  levels: LevelProfile | null;
  custom: CustomRuleMatcher | null;
  /** The site's exclusions by path; null when it has none. */
  exclusions: SiteExclusions | null;
  /** The access log's rule ids (LoadedRuleSet.named). */
  named: ReadonlySet<string>;
  /** The site's groups are on but no rule set is loaded: only its custom rules run. */
  ruleSetMissing: boolean;
  /** Whether the second opinion reconsiders the anomaly score's blocks (second-opinion.ts). */
  secondOpinion: boolean;
  /** CRS file numbers (`942`) of the groups on at level normal: their level-2 SQL and XSS matches are checked (confirmation.ts). */
  atNormal: ReadonlySet<string>;
}

/** Whether a site's anomaly-score blocks get the second opinion. */
export interface SecondOpinionView {
  enabled: boolean;
}

/** The answer for a request no rule inspected because no rule set is loaded (access log `waf_rule_set`). */
const RULE_SET_MISSING: WafOutcome = Object.freeze({ ...NO_WAF_MATCH, ruleSet: 'missing' as const });

/** A request's WAF outcome, and the response phases of its transaction while it is open. */
export interface OpenInspection {
  outcome: WafOutcome;
  /** Null: the transaction is closed (blocked already, or no Core Rule Set runs), or nothing new matched. */
  respond(response: WafResponse): WafOutcome | null;
}

const closed = (outcome: WafOutcome): OpenInspection => ({ outcome, respond: () => null });

/**
 * The named rules of a match list and their categories, each once, in order; and per match of a
 * named rule, `id variable` (`942100 ARGS:q`), which an exclusion proposed from the record names.
 */
function collect(
  matched: readonly MatchedRule[],
  named: ReadonlySet<string>,
  ruleIds: string[],
  categories: string[],
  targets: string[],
): void {
  for (const m of matched) {
    if (!named.has(m.id)) continue;
    const target = `${m.id} ${m.variable}`;
    if (!targets.includes(target)) targets.push(target);
    if (ruleIds.includes(m.id)) continue;
    ruleIds.push(m.id);
    const category = categoryOf(m.tags) ?? (RECOMMENDED_IDS.has(m.id) ? 'protocol' : undefined);
    if (category && !categories.includes(category)) categories.push(category);
  }
}

const fail = (field: string, message: string, params?: ErrorParams): RampartError =>
  new RampartError('VALIDATION_FAILED', `${field}: ${message}`, { field, ...(params ? { params } : {}) });

/**
 * Basic application security rules per site: the 12 groups' switches and protection levels, custom
 * rules, and the WAF stage of the verdict pipeline that runs them (with the one-minute denial of a
 * plugin-access client after a rule fired).
 */
export class BasicRulesService {
  readonly #deps: BasicRulesServiceDeps;
  /** Site id -> what it runs; replaced entry by entry, each swap atomic. */
  readonly #runtimes = new Map<string, SiteRuntime>();
  /** The configuration generation (sites, basic rules) the runtimes were last checked against. */
  #syncedAt = -1;
  #syncScheduled = false;
  /** For a site that has no runtime yet (created since the last check): every group on, loose. */
  #fallback: SiteRuntime | null = null;
  /** Until when a plugin-access client is denied; when full, lapsed denials go first. */
  readonly #denials: SiteClients<number>;
  /** Blocks per client and site in the last hour: the second opinion's history signal. */
  readonly #history = new BlockHistory();
  /** Requests per client and site in the last minute: its rate signal. */
  readonly #rate = new RequestRate();
  /** Per site, the shapes of its clean requests' parameters: its learned normal. */
  readonly #learned = new LearnedNormal();

  constructor(deps: BasicRulesServiceDeps) {
    this.#deps = deps;
    this.#denials = new SiteClients(MAX_DENIALS, {
      now: () => deps.clock.now(),
      over: (until, now) => until <= now,
    });
    deps.ruleSets.onInstalled(() => this.#sync());
    this.#sync();
  }

  // ----- configuration -----

  #site(siteId: string): SiteBasicRulesRecord {
    if (!this.#deps.store.data.sites.some((s) => s.id === siteId)) {
      throw new RampartError('NOT_FOUND', `No site with ID ${siteId}`, { field: 'id', params: { id: siteId } });
    }
    return this.#deps.store.data.basicRules[siteId] ?? { groups: {}, customRules: [] };
  }

  #group(id: string): RuleGroup {
    const group = RULE_GROUPS.find((g) => g.id === id);
    if (!group) throw new RampartError('NOT_FOUND', `No rule group ${id} (groups are 001 to 012)`, { field: 'group' });
    return group;
  }

  groups(siteId: string): BasicRuleGroupView[] {
    const record = this.#site(siteId);
    return RULE_GROUPS.map((g) => this.#groupView(g, record.groups[g.id] ?? DEFAULT_GROUP, record));
  }

  /** `enabledRuleCount` leaves out the rules of the level that the site switched off (site-wide exclusions). */
  #groupView(group: RuleGroup, setting: RuleGroupSetting, record: SiteBasicRulesRecord): BasicRuleGroupView {
    const loaded = this.#deps.ruleSets.current;
    const counts = loaded?.counts.find((c) => c.group.id === group.id);
    const level = paranoiaOf(setting.level);
    const off = siteWideOff(record);
    const switchedOff =
      off.size === 0
        ? 0
        : (loaded?.levels ?? []).filter(
            (r) => r.group.id === group.id && r.scoring && r.level <= level && off.has(Number(r.id)),
          ).length;
    return {
      id: group.id,
      name: group.name,
      file: group.crsFile,
      enabled: setting.enabled,
      level: setting.level,
      enabledRuleCount: counts ? Math.max(0, (counts.enabled[level - 1] ?? 0) - switchedOff) : 0,
      ruleCount: counts ? counts.enabled[3] : 0,
    };
  }

  async setGroup(siteId: string, groupId: string, setting: RuleGroupSetting): Promise<BasicRuleGroupView> {
    const group = this.#group(groupId);
    this.#site(siteId);
    await this.#deps.store.update((doc) => {
      const record = (doc.basicRules[siteId] ??= { groups: {}, customRules: [] });
      record.groups[group.id] = { enabled: setting.enabled, level: setting.level };
    });
    // A new combination of switched-off groups needs its own compiled rule set (a few hundred ms):
    // build it now, in the operator's request, rather than in the site's next verdict.
    this.#sync();
    return this.#groupView(group, setting, this.#site(siteId));
  }

  groupRules(siteId: string, groupId: string): GroupRuleView[] {
    const group = this.#group(groupId);
    const record = this.#site(siteId);
    const setting = record.groups[group.id] ?? DEFAULT_GROUP;
    const level = paranoiaOf(setting.level);
    const levels = this.#deps.ruleSets.current?.levels ?? [];
    const off = siteWideOff(record);
    return levels
      .filter((r) => r.group.id === group.id && r.scoring)
      .map((r) => {
        const exclusion = off.get(Number(r.id));
        return {
          id: Number(r.id),
          message: r.msg,
          level: r.level,
          enabled: setting.enabled && r.level <= level && exclusion === undefined,
          switchedOff: exclusion ? { exclusionId: exclusion.id, reason: exclusion.reason } : null,
        };
      });
  }

  // ----- exclusions and content types (false positives) -----

  exclusions(siteId: string): WafExclusionView[] {
    const messages = this.#ruleMessages();
    return (this.#site(siteId).exclusions ?? []).map((e) => ({ ...e, ruleMessage: messages.get(e.ruleId) ?? null }));
  }

  #ruleMessages(): Map<number, string> {
    const out = new Map<number, string>();
    for (const r of this.#deps.ruleSets.current?.levels ?? []) out.set(Number(r.id), r.msg);
    return out;
  }

  /**
   * Adds an exclusion (the same rule, target and path twice is refused). `by` is the account that
   * made it; the site's runtime is rebuilt before this returns, so the next verdict applies it.
   */
  async createExclusion(siteId: string, input: WafExclusionInput, by: string): Promise<WafExclusionView> {
    this.#site(siteId);
    const exclusion: WafExclusionRecord = {
      id: newId('ex', this.#deps.random),
      ruleId: input.ruleId,
      target: input.target,
      path: input.path,
      reason: input.reason,
      createdBy: by,
      createdAt: this.#deps.clock.now(),
    };
    await this.#deps.store.update((doc) => {
      const record = (doc.basicRules[siteId] ??= { groups: {}, customRules: [] });
      const list = (record.exclusions ??= []);
      if (list.length >= WAF_EXCLUSION_LIMITS.perSite)
        throw fail('ruleId', `a site can have at most ${WAF_EXCLUSION_LIMITS.perSite} exclusions`);
      const same = list.find((e) => sameExclusion(e, exclusion));
      if (same) {
        throw new RampartError(
          'NAME_TAKEN',
          `ruleId: rule ${exclusion.ruleId} is already excluded here (exclusion ${same.id}: ${same.reason})`,
          { field: 'ruleId', params: { id: same.id, name: `rule ${exclusion.ruleId}` } },
        );
      }
      list.push(exclusion);
    });
    this.#sync();
    // The site's clients denied for a minute after a rule fired were denied by rules as they stood:
    // an operator retrying the request the exclusion is for must not meet that denial.
    this.#forgiveDenials(siteId);
    return { ...exclusion, ruleMessage: this.#ruleMessages().get(exclusion.ruleId) ?? null };
  }

  async deleteExclusion(siteId: string, exclusionId: string): Promise<void> {
    this.#site(siteId);
    await this.#deps.store.update((doc) => {
      const list = doc.basicRules[siteId]?.exclusions ?? [];
      const index = list.findIndex((e) => e.id === exclusionId);
      if (index === -1)
        throw new RampartError('NOT_FOUND', `No exclusion with ID ${exclusionId}`, { field: 'exclusionId' });
      list.splice(index, 1);
    });
    this.#sync();
  }

  /**
   * The narrowest exclusions that would have let a stored access record of the site through (see
   * exclusions.ts proposeFor), without those the site already has.
   */
  proposeExclusions(
    siteId: string,
    record: Readonly<Record<string, unknown>>,
  ): (ExclusionSpec & { ruleMessage: string | null })[] {
    const existing = this.#site(siteId).exclusions ?? [];
    const messages = this.#ruleMessages();
    return proposeFor(record)
      .filter((p) => !existing.some((e) => sameExclusion(e, p)))
      .map((p) => ({ ...p, ruleMessage: messages.get(p.ruleId) ?? null }));
  }

  /** The site's exclusions as specs (for counting what they clear in stored records). */
  exclusionSpecs(siteId: string): ExclusionSpec[] {
    return (this.#site(siteId).exclusions ?? []).map(({ ruleId, target, path }) => ({ ruleId, target, path }));
  }

  contentTypes(siteId: string): ContentTypesView {
    const own = this.#site(siteId).contentTypes ?? null;
    return {
      types: own ?? [...DEFAULT_ALLOWED_CONTENT_TYPES],
      isDefault: own === null,
      defaults: [...DEFAULT_ALLOWED_CONTENT_TYPES],
    };
  }

  /** A site's own list of allowed request content types, or null for Rampart's default. */
  async setContentTypes(siteId: string, input: ContentTypesInput): Promise<ContentTypesView> {
    this.#site(siteId);
    const types = input.types === null ? null : [...new Set(input.types)];
    await this.#deps.store.update((doc) => {
      const record = (doc.basicRules[siteId] ??= { groups: {}, customRules: [] });
      if (types === null) delete record.contentTypes;
      else record.contentTypes = types;
    });
    this.#sync();
    return this.contentTypes(siteId);
  }

  /** Whether the second opinion reconsiders the site's anomaly-score blocks (second-opinion.ts). */
  secondOpinion(siteId: string): SecondOpinionView {
    return { enabled: this.#site(siteId).secondOpinion === true };
  }

  async setSecondOpinion(siteId: string, input: SecondOpinionView): Promise<SecondOpinionView> {
    this.#site(siteId);
    await this.#deps.store.update((doc) => {
      const record = (doc.basicRules[siteId] ??= { groups: {}, customRules: [] });
      if (input.enabled) record.secondOpinion = true;
      else delete record.secondOpinion;
    });
    this.#forgetClients(siteId);
    this.#sync();
    return this.secondOpinion(siteId);
  }

  customRules(siteId: string): CustomRuleView[] {
    return this.#site(siteId).customRules.map(view);
  }

  async createCustomRule(siteId: string, input: CustomRuleInput): Promise<CustomRuleView> {
    this.#checkRule(siteId, input);
    const now = this.#deps.clock.now();
    const rule: CustomRuleRecord = {
      id: newId('cr', this.#deps.random),
      ...normalise(input),
      createdAt: now,
      updatedAt: now,
    };
    await this.#deps.store.update((doc) => {
      const record = (doc.basicRules[siteId] ??= { groups: {}, customRules: [] });
      if (record.customRules.length >= MAX_CUSTOM_RULES)
        throw fail('name', `a site can have at most ${MAX_CUSTOM_RULES} custom rules`);
      checkUniqueName(record.customRules, rule);
      record.customRules.push(rule);
    });
    this.#sync();
    return view(rule);
  }

  async updateCustomRule(siteId: string, ruleId: string, input: CustomRuleInput): Promise<CustomRuleView> {
    this.#checkRule(siteId, input);
    const updated = await this.#deps.store.update((doc) => {
      const record = doc.basicRules[siteId];
      const index = record?.customRules.findIndex((r) => r.id === ruleId) ?? -1;
      const existing = record?.customRules[index];
      if (!record || !existing)
        throw new RampartError('NOT_FOUND', `No custom rule with ID ${ruleId}`, { field: 'ruleId' });
      const rule: CustomRuleRecord = { ...existing, ...normalise(input), updatedAt: this.#deps.clock.now() };
      checkUniqueName(record.customRules, rule);
      record.customRules[index] = rule;
      return rule;
    });
    this.#sync();
    return view(updated);
  }

  async deleteCustomRule(siteId: string, ruleId: string): Promise<void> {
    this.#site(siteId);
    await this.#deps.store.update((doc) => {
      const record = doc.basicRules[siteId];
      const index = record?.customRules.findIndex((r) => r.id === ruleId) ?? -1;
      if (!record || index === -1)
        throw new RampartError('NOT_FOUND', `No custom rule with ID ${ruleId}`, { field: 'ruleId' });
      record.customRules.splice(index, 1);
    });
    this.#sync();
  }

  /** A copied site gets the original's groups, custom rules and exclusions (with new ids), content types and second opinion. */
  async copySite(fromId: string, toId: string): Promise<void> {
    const from = this.#deps.store.data.basicRules[fromId];
    if (!from) return;
    await this.#deps.store.update((doc) => {
      doc.basicRules[toId] = {
        groups: structuredClone(from.groups),
        customRules: from.customRules.map((r) => ({ ...structuredClone(r), id: newId('cr', this.#deps.random) })),
        ...(from.exclusions
          ? { exclusions: from.exclusions.map((e) => ({ ...structuredClone(e), id: newId('ex', this.#deps.random) })) }
          : {}),
        ...(from.contentTypes ? { contentTypes: [...from.contentTypes] } : {}),
        ...(from.secondOpinion ? { secondOpinion: true } : {}),
      };
    });
    this.#sync();
  }

  async removeSite(siteId: string): Promise<void> {
    this.#forgetClients(siteId);
    if (!(siteId in this.#deps.store.data.basicRules)) return;
    await this.#deps.store.update((doc) => {
      delete doc.basicRules[siteId];
    });
    this.#sync();
  }

  /**
   * The site's learned normal of a match's parameter, judged on the value the request sent (the
   * request's parameters and path are read once, on the first match that names a parameter).
   */
  #learnedOf(siteId: string, facts: RequestFacts): (match: MatchedRule) => LearnedFit | null {
    let params: Map<string, string> | undefined;
    let path: string | undefined;
    return (match) => {
      const name = paramOf(match.variable);
      if (name === null) return null;
      params ??= new Map(requestParams(facts));
      path ??= pathOf(facts.uri);
      return this.#learned.judge(siteId, path, match.variable, params.get(name) ?? match.value);
    };
  }

  /** What the second opinion keeps of a site's clients and requests (switched, or the site gone). */
  #forgetClients(siteId: string): void {
    this.#history.forget(siteId);
    this.#rate.forget(siteId);
    this.#learned.forget(siteId);
  }

  /** Location / pattern rules beyond the schema, with the failing field's path. */
  #checkRule(siteId: string, input: CustomRuleInput): void {
    const site = this.#deps.store.data.sites.find((s) => s.id === siteId);
    if (!site)
      throw new RampartError('NOT_FOUND', `No site with ID ${siteId}`, { field: 'id', params: { id: siteId } });
    const plugin = site.accessMethod === 'plugin';
    const combined = input.location === 'all' || input.location === 'any';
    if (plugin && !combined && !PLUGIN_LOCATIONS.has(input.location as ConditionLocation)) {
      throw fail('location', 'plugin access supports only the locations request URL and request URL parameter name');
    }
    if (!combined && !PAIR_LOCATIONS.has(input.location as ConditionLocation) && input.conditions.length !== 1) {
      throw fail('conditions', 'this location takes exactly one regex');
    }
    input.conditions.forEach((c, i) => {
      if (!combined && c.location !== input.location)
        throw fail(`conditions.${i}.location`, `must be ${input.location}, the rule's location`);
      if (plugin && !PLUGIN_LOCATIONS.has(c.location)) {
        throw fail(
          `conditions.${i}.location`,
          'plugin access supports only the locations request URL and request URL parameter name',
        );
      }
      if (PAIR_LOCATIONS.has(c.location)) {
        const nameIssue = patternIssue(c.name === '' ? '.*' : c.name);
        if (nameIssue) throw fail(`conditions.${i}.name`, nameIssue.message, nameIssue.params);
      }
      const issue = patternIssue(c.pattern);
      if (issue) throw fail(`conditions.${i}.pattern`, issue.message, issue.params);
    });
  }

  // ----- the WAF stage -----

  /**
   * Brings every site's runtime up to date with the configuration and the loaded rule set, building
   * only those whose inputs changed. Compiles a combination of switched-off groups not built yet, so
   * it runs where a few hundred ms are acceptable (a save, a rule-set install, the background), never
   * in a verdict.
   */
  #sync(): void {
    const data = this.#deps.store.data;
    const loaded = this.#deps.ruleSets.current;
    const generation = loaded?.generation ?? 0;
    this.#syncedAt = this.#deps.store.generation;
    // Sites with the same switched-off groups share one compiled WAF.
    const shared = new Map<string, Waf>();
    for (const runtime of this.#runtimes.values()) {
      if (runtime.generation === generation && runtime.waf)
        shared.set(runtime.key.slice(0, runtime.key.indexOf(' ')), runtime.waf);
    }
    const present = new Set<string>();
    for (const site of data.sites) {
      present.add(site.id);
      const record = data.basicRules[site.id];
      const key = runtimeKey(record, site.accessMethod === 'plugin');
      const current = this.#runtimes.get(site.id);
      if (current?.key === key && current.generation === generation) continue;
      this.#runtimes.set(site.id, this.#build(record, key, site.accessMethod === 'plugin', shared));
    }
    for (const id of this.#runtimes.keys()) if (!present.has(id)) this.#runtimes.delete(id);
    if (this.#fallback?.generation !== generation)
      this.#fallback = this.#build(undefined, runtimeKey(undefined, false), false, shared);
  }

  #build(
    record: SiteBasicRulesRecord | undefined,
    key: string,
    plugin: boolean,
    shared: Map<string, Waf>,
  ): SiteRuntime {
    const loaded = this.#deps.ruleSets.current;
    const settings = RULE_GROUPS.map((g) => record?.groups[g.id] ?? DEFAULT_GROUP);
    const crsGroups = RULE_GROUPS.map((g) => String(g.crsFile) as GroupId);
    const groupsOn = settings.some((s) => s.enabled);
    let waf: Waf | null = null;
    let levels: LevelProfile | null = null;
    if (loaded && groupsOn) {
      const combination = key.slice(0, key.indexOf(' '));
      waf = shared.get(combination) ?? loaded.wafFor(crsGroups.filter((_, i) => settings[i]?.enabled === false));
      shared.set(combination, waf);
      levels = waf.levels(
        Object.fromEntries(crsGroups.map((g, i) => [g, paranoiaOf(settings[i]?.level ?? 'loose')])),
        // CRS 3.3 and 4 read the policy from TX; a setup file that sets it (rule 900220) still wins.
        { allowed_request_content_type: contentTypePolicy(record?.contentTypes ?? DEFAULT_ALLOWED_CONTENT_TYPES) },
      );
    }
    const rules = (record?.customRules ?? []).filter(
      (r) => r.enabled && (!plugin || r.conditions.every((c) => PLUGIN_LOCATIONS.has(c.location))),
    );
    return {
      key,
      generation: loaded?.generation ?? 0,
      waf,
      levels,
      custom: rules.length > 0 ? compileCustomRules(rules) : null,
      exclusions: SiteExclusions.compile(record?.exclusions),
      named: loaded?.named ?? RECOMMENDED_IDS,
      ruleSetMissing: loaded === null && groupsOn,
      secondOpinion: record?.secondOpinion === true,
      atNormal: new Set(crsGroups.filter((_, i) => settings[i]?.enabled !== false && settings[i]?.level === 'normal')),
    };
  }

  /** A site's runtime for a verdict: as last built; a configuration change is picked up right after. */
  #runtime(siteId: string): SiteRuntime | null {
    if (this.#deps.store.generation !== this.#syncedAt && !this.#syncScheduled) {
      this.#syncScheduled = true;
      setImmediate(() => {
        this.#syncScheduled = false;
        if (this.#deps.store.generation !== this.#syncedAt) this.#sync();
      });
    }
    return this.#runtimes.get(siteId) ?? this.#fallback;
  }

  /** The verdict pipeline's WAF stage. */
  inspect(facts: RequestFacts, site: CompiledSite, srcIp: string, probe: ProbeSignal = NO_PROBE): WafOutcome {
    return this.#inspect(facts, site, srcIp, probe, false).outcome;
  }

  /**
   * The WAF stage of a request whose response Rampart will see (the reverse proxy): the request's
   * outcome, and `respond`, which runs the response phases (3 and 4) of the same transaction over
   * the origin's status, headers and first body bytes. `respond` answers null when nothing new
   * matched; otherwise the rules the response phases added, and whether they block.
   */
  begin(facts: RequestFacts, site: CompiledSite, srcIp: string, probe: ProbeSignal = NO_PROBE): OpenInspection {
    return this.#inspect(facts, site, srcIp, probe, true);
  }

  #inspect(
    facts: RequestFacts,
    site: CompiledSite,
    srcIp: string,
    probe: ProbeSignal,
    keepOpen: boolean,
  ): OpenInspection {
    const runtime = this.#runtime(site.id);
    if (runtime === null || (runtime.waf === null && runtime.custom === null))
      return closed(runtime?.ruleSetMissing ? RULE_SET_MISSING : NO_WAF_MATCH);
    // A token the pipeline verified is Rampart's own text, not the client's: the rules skip it.
    const headers = clientHeaders(facts, probe.result === 'none' ? null : site.tokenCookieName);
    if (this.#deps.compatibilityLog) this.#marker(facts, headers);
    const ruleIds: string[] = [];
    const categories: string[] = [];
    const targets: string[] = [];
    let blocked = false;
    let score = 0;
    let opinion: string | undefined;
    let levelCheck: string | undefined;
    let transaction: WafTransaction | null = null;
    const named = runtime.named;
    // The second opinion's signals about the client: its request rate counts every request.
    const now = runtime.secondOpinion ? this.#deps.clock.now() : 0;
    const recentRequests = runtime.secondOpinion ? this.#rate.hit(site.id, srcIp, now) : 0;
    /** The request phases again without the matches the level check or the second opinion cleared (see below). */
    let reopened: WafTransaction | null = null;
    if (runtime.waf && runtime.levels) {
      const request = wafRequest(facts, srcIp, headers);
      const options = { levels: runtime.levels, exclusions: runtime.exclusions?.forUri(facts.uri) };
      let outcome: WafEngineOutcome;
      if (keepOpen) {
        transaction = runtime.waf.begin(request, options);
        outcome = transaction.request;
      } else outcome = runtime.waf.inspect(request, options);
      collect(outcome.matched, named, ruleIds, categories, targets);
      blocked = outcome.interrupted;
      score = outcome.score;
      const threshold = outcome.threshold ?? DEFAULT_THRESHOLD;
      const check =
        blocked && runtime.atNormal.size > 0
          ? checkAtNormal(outcome.matched, score, threshold, runtime.atNormal)
          : null;
      if (check !== null) {
        levelCheck = levelCheckText(score, check, threshold);
        blocked = check.blocked;
      }
      if (blocked && runtime.secondOpinion) {
        const second = weigh({
          matched: outcome.matched,
          score: check?.score ?? score,
          threshold,
          probe,
          earlierBlocks: this.#history.count(site.id, srcIp, now),
          recentRequests,
          learned: this.#learnedOf(site.id, facts),
          ...(check === null ? {} : { checked: check.checked }),
        });
        if (second !== null) {
          opinion = opinionText(check?.score ?? score, second);
          blocked = second.blocked;
        }
      }
      // A transaction CRS's blocking rule interrupted would block again in the response phases. When
      // the level check or the second opinion cleared the block, the request phases run once more
      // without the matches they cleared (the opinion weighs the request as a whole: all of its
      // matches), so that the response is still inspected (CRS's data-leakage rules).
      if (transaction !== null && outcome.interrupted && !blocked) {
        const cleared = opinion !== undefined ? outcome.matched : (check?.cleared ?? []);
        const again = runtime.waf.begin(request, {
          levels: runtime.levels,
          exclusions: withCleared(options.exclusions, cleared),
        });
        if (!again.request.interrupted) reopened = again;
      }
    }
    if (runtime.custom) {
      const fired = runtime.custom.match(customRequest(facts, srcIp, headers));
      if (fired.length > 0) {
        blocked = true;
        ruleIds.push(...fired);
        categories.push('custom');
      }
    }
    if (blocked && site.accessMethod === 'plugin' && site.runMode === 'block') this.#deny(site.id, srcIp);
    if (runtime.secondOpinion) {
      if (blocked) this.#history.record(site.id, srcIp, now);
      // Only requests no rule fired on teach the site's normal.
      else if (ruleIds.length === 0) this.#learned.learn(site.id, facts, srcIp);
    }
    const outcome: WafOutcome =
      ruleIds.length === 0 && !blocked
        ? runtime.ruleSetMissing
          ? RULE_SET_MISSING
          : NO_WAF_MATCH
        : {
            blocked,
            ruleIds,
            categories,
            score,
            targets,
            ...(runtime.ruleSetMissing ? { ruleSet: 'missing' as const } : {}),
            ...(levelCheck === undefined ? {} : { levelCheck }),
            ...(opinion === undefined ? {} : { secondOpinion: opinion }),
          };
    // An interrupted transaction's response phases would block again: a cleared block's response is
    // inspected in the one run again above.
    const open = transaction?.request.interrupted ? reopened : transaction;
    if (open === null || blocked) return closed(outcome);
    return {
      outcome,
      respond: (response) => {
        const before = open.request.matched.length;
        const after = open.inspectResponse(response);
        if (after.matched.length === before && !after.interrupted) return null;
        const added: string[] = [];
        const addedCategories: string[] = [];
        const addedTargets: string[] = [];
        collect(after.matched.slice(before), named, added, addedCategories, addedTargets);
        if (added.length === 0 && !after.interrupted) return null;
        return {
          blocked: after.interrupted,
          ruleIds: added,
          categories: addedCategories,
          score: after.score,
          targets: addedTargets,
        };
      },
    };
  }

  /** go-ftw brackets each test with requests carrying X-CRS-Test and waits for the value in the log. */
  #marker(facts: RequestFacts, headers: readonly [string, string][]): void {
    for (const [name, value] of headers) {
      if (name.toLowerCase() !== 'x-crs-test') continue;
      const clean = value.replace(/[^\x20-\x7e]|"/g, '_').slice(0, 256);
      this.#deps.compatibilityLog?.(
        `ModSecurity: Warning. Matched "Operator \`Rx' with parameter \`^.*$' against variable \`REQUEST_HEADERS:X-CRS-Test' (Value: \`${clean}' ) [id "999999"] [msg "${clean}"] [uri "${facts.uri.replace(/"/g, '%22').slice(0, 1024)}"]`,
      );
    }
  }

  #forgiveDenials(siteId: string): void {
    this.#denials.forget(siteId);
  }

  #deny(siteId: string, ip: string): void {
    this.#denials.set(siteId, ip, this.#deps.clock.now() + WAF_DENIAL_MS);
  }

  /** A plugin-access client is denied for a minute after a basic rule fired on it. */
  isDenied(siteId: string, ip: string, now: number): boolean {
    const until = this.#denials.get(siteId, ip);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#denials.delete(siteId, ip);
    return false;
  }
}

/**
 * What a site's runtime is built from, as one string: the switched-off groups first (the compiled
 * WAF's cache key, up to the first space), then the access method and the whole record.
 */
function runtimeKey(record: SiteBasicRulesRecord | undefined, plugin: boolean): string {
  const off = RULE_GROUPS.filter((g) => record?.groups[g.id]?.enabled === false).map((g) => g.id);
  return `${off.join(',') || '-'} ${plugin ? 'plugin' : 'other'} ${JSON.stringify(record ?? null)}`;
}

/** The same rule, path and target (targets ignoring case, as the WAF matches them). */
function sameExclusion(a: ExclusionSpec, b: ExclusionSpec): boolean {
  return a.ruleId === b.ruleId && a.path === b.path && a.target.toLowerCase() === b.target.toLowerCase();
}

/** A site's rules switched off for the whole site (whole-rule, every-path exclusions), by rule id. */
function siteWideOff(record: SiteBasicRulesRecord): Map<number, WafExclusionRecord> {
  const off = new Map<number, WafExclusionRecord>();
  for (const e of record.exclusions ?? []) if (e.target === '' && e.path === '') off.set(e.ruleId, e);
  return off;
}

/** Custom rule names are unique per site, ignoring case. */
function checkUniqueName(rules: readonly CustomRuleRecord[], rule: CustomRuleRecord): void {
  const name = rule.name.toLowerCase();
  if (rules.some((r) => r.id !== rule.id && r.name.toLowerCase() === name)) {
    throw new RampartError('NAME_TAKEN', `name: a custom rule named "${rule.name}" already exists`, {
      field: 'name',
      params: { name: rule.name },
    });
  }
}

/** `attack-sqli` -> `sqli`; CRS tags each rule with the attack it detects. */
function categoryOf(tags: readonly string[]): string | undefined {
  for (const t of tags) if (t.startsWith('attack-')) return t.slice(7);
  return undefined;
}

function normalise(input: CustomRuleInput): Omit<CustomRuleRecord, 'id' | 'createdAt' | 'updatedAt'> {
  return {
    name: input.name,
    remark: input.remark,
    enabled: input.enabled,
    location: input.location,
    conditions: input.conditions.map((c): CustomRuleCondition => ({
      location: c.location,
      name: PAIR_LOCATIONS.has(c.location) ? c.name || '.*' : '',
      pattern: c.pattern,
    })),
  };
}

function view(rule: CustomRuleRecord): CustomRuleView {
  return { ...rule, attackType: 'custom', direction: 'request' };
}

/** A request's exclusions with the matches the level check or the second opinion cleared removed as rule targets. */
function withCleared(exclusions: RequestExclusions | undefined, cleared: readonly MatchedRule[]): RequestExclusions {
  const removed = requestExclusions(
    [],
    cleared.map((m) => ({ ruleId: Number(m.id), variable: m.variable })),
  );
  return exclusions === undefined
    ? removed
    : { ruleIds: exclusions.ruleIds, targets: [...exclusions.targets, ...removed.targets] };
}
