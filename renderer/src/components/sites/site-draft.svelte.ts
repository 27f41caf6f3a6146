/**
 * The site form's state: the API's site with every list as one text (one entry per line), the
 * fields each edition and run mode show, client checks, and whether anything changed since the
 * last load or save. The engine stays the judge: its errors are mapped back onto these fields.
 */
import type {
  AccessMethod,
  AccountExtraction,
  AntiBot,
  Edition,
  ListMode,
  RunMode,
  SiteInput,
  SiteList,
  SiteView,
  SourceIpMode,
  XffMode,
} from '$lib/api-types.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage, fieldLabel } from '$lib/errors.ts';
import { t } from '$lib/i18n.svelte.ts';

export interface ListDraft {
  pathEnabled: boolean;
  paths: string;
  ipEnabled: boolean;
  ips: string;
}

export type ListKey = 'checkList' | 'passList' | 'blockList';

/** The engine's limits and formats (engine/sites/site-input.ts), checked early for quick feedback. */
export const SITE_RULES = {
  nameMax: 64,
  expiry: { min: 10, max: 86_400 },
  status: { min: 200, max: 599 },
  pow: { min: 0, max: 24 },
  domain: /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
  cookieName: /^[A-Za-z0-9_\-.]+$/,
  header: /^[A-Za-z0-9-]+$/,
} as const;

/** Fields holding one entry per line: the engine names a bad entry by its line. */
export const LINE_FIELDS = [
  'checkList.paths',
  'checkList.ips',
  'passList.paths',
  'passList.ips',
  'blockList.paths',
  'blockList.ips',
  'sourceIp.trustedSources',
] as const;

const emptyList = (): ListDraft => ({ pathEnabled: false, paths: '', ipEnabled: false, ips: '' });
const listDraft = (list: SiteList): ListDraft => ({
  pathEnabled: list.pathEnabled,
  paths: list.paths.join('\n'),
  ipEnabled: list.ipEnabled,
  ips: list.ips.join('\n'),
});

/** Lines as typed, so the engine's line numbers match the text box; trailing blank lines dropped. */
export function toLines(text: string): string[] {
  const lines = text.replace(/\r/g, '').split('\n');
  while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop();
  return lines;
}

const listInput = (list: ListDraft): SiteList => ({
  pathEnabled: list.pathEnabled,
  paths: toLines(list.paths),
  ipEnabled: list.ipEnabled,
  ips: toLines(list.ips),
});

const wholeIn = (value: number | null, range: { min: number; max: number }): boolean =>
  value !== null && Number.isInteger(value) && value >= range.min && value <= range.max;

export class SiteDraft {
  readonly edition: Edition;
  name = $state('');
  domain = $state('');
  runMode = $state<RunMode>('monitor');
  accessMethod = $state<AccessMethod>('plugin');
  listMode = $state<ListMode>('all');
  checkList = $state<ListDraft>(emptyList());
  passList = $state<ListDraft>(emptyList());
  blockList = $state<ListDraft>(emptyList());
  tokenCookieName = $state('rampart_token');
  identityCookieName = $state('rampart_id');
  tokenExpirySeconds = $state<number | null>(60);
  blockStatus = $state<number | null>(400);
  /** Empty means the engine's default page. */
  blockContent = $state('');
  reloadStatus = $state<number | null>(412);
  reloadContent = $state('');
  browserFeatureDetection = $state(true);
  queryThreatStore = $state(true);
  hideServerInfo = $state(true);
  sourceIp = $state<{ mode: SourceIpMode; xffMode: XffMode; trustedSources: string; customHeader: string }>({
    mode: 'default',
    xffMode: 'leftmost',
    trustedSources: '',
    customHeader: '',
  });
  accountExtraction = $state<AccountExtraction>({
    enabled: false,
    loginPath: '',
    usernameSelector: '',
    successSelector: '',
    successText: '',
    failureSelector: '',
    failureText: '',
  });
  miniProgramProtection = $state(false);
  /** Edited on the rules page; kept as loaded so a save here does not change it. */
  antiBot = $state<AntiBot>({ enabled: false, scanner: true, scriptTool: true, otherCrawler: false });
  powDifficulty = $state<number | null>(0);
  #baseline = $state('');

  constructor(edition: Edition, site?: SiteView) {
    this.edition = edition;
    if (site) this.load(site);
    else this.#baseline = this.#snapshot();
  }

  load(site: SiteView): void {
    this.name = site.name;
    this.domain = site.domain;
    this.runMode = site.runMode;
    this.accessMethod = site.accessMethod;
    this.listMode = site.listMode;
    this.checkList = listDraft(site.checkList);
    this.passList = listDraft(site.passList);
    this.blockList = listDraft(site.blockList);
    this.tokenCookieName = site.tokenCookieName;
    this.identityCookieName = site.identityCookieName;
    this.tokenExpirySeconds = site.tokenExpirySeconds;
    this.blockStatus = site.blockStatus;
    this.blockContent = site.blockContent;
    this.reloadStatus = site.reloadStatus;
    this.reloadContent = site.reloadContent;
    this.browserFeatureDetection = site.browserFeatureDetection;
    this.queryThreatStore = site.queryThreatStore;
    this.hideServerInfo = site.hideServerInfo;
    this.sourceIp = { ...site.sourceIp, trustedSources: site.sourceIp.trustedSources.join('\n') };
    this.accountExtraction = { ...site.accountExtraction };
    this.miniProgramProtection = site.miniProgramProtection;
    this.antiBot = { ...site.antiBot };
    this.powDifficulty = site.powDifficulty;
    this.#baseline = this.#snapshot();
  }

  get dirty(): boolean {
    return this.#snapshot() !== this.#baseline;
  }

  /** After a save: the current state is the stored one. */
  markSaved(): void {
    this.#baseline = this.#snapshot();
  }

  /** Whether the form shows a field (API path) for the current edition, run mode and access method. */
  shows(field: string): boolean {
    const top = field.split('.')[0] ?? field;
    if (top === 'name' || top === 'runMode' || top === 'accessMethod') return true;
    if (top === 'domain') return this.edition === 'B';
    if (this.runMode === 'pass') return false;
    const blockOnly = ['blockStatus', 'blockContent', 'reloadStatus', 'reloadContent'].includes(top);
    if (blockOnly && this.runMode !== 'block') return false;
    if (this.edition === 'B') {
      if (top === 'miniProgramProtection' || top === 'passList' || top === 'blockList') return true;
      if (top === 'powDifficulty') return this.accessMethod !== 'bypass';
      if (blockOnly || top === 'hideServerInfo') return this.accessMethod === 'plugin';
      return false;
    }
    if (this.accessMethod === 'pluginless') {
      return ['tokenCookieName', 'identityCookieName', 'browserFeatureDetection', 'sourceIp'].includes(top);
    }
    if (top === 'checkList' || top === 'listMode') return true;
    if (top === 'passList' || top === 'blockList' || top === 'miniProgramProtection') return false;
    return true;
  }

  toInput(): SiteInput {
    const input: SiteInput = {
      name: this.name.trim(),
      domain: this.domain.trim(),
      runMode: this.runMode,
      accessMethod: this.accessMethod,
      listMode: this.listMode,
      checkList: listInput(this.checkList),
      passList: listInput(this.passList),
      blockList: listInput(this.blockList),
      tokenCookieName: this.tokenCookieName.trim(),
      identityCookieName: this.identityCookieName.trim(),
      tokenExpirySeconds: this.tokenExpirySeconds ?? 60,
      blockStatus: this.blockStatus ?? 400,
      reloadStatus: this.reloadStatus ?? 412,
      browserFeatureDetection: this.browserFeatureDetection,
      queryThreatStore: this.queryThreatStore,
      hideServerInfo: this.hideServerInfo,
      sourceIp: {
        ...this.sourceIp,
        customHeader: this.sourceIp.customHeader.trim(),
        trustedSources: toLines(this.sourceIp.trustedSources),
      },
      accountExtraction: { ...this.accountExtraction },
      miniProgramProtection: this.miniProgramProtection,
      antiBot: { ...this.antiBot },
      powDifficulty: this.powDifficulty ?? 0,
    };
    // An empty page content is left out: the engine fills in its default page.
    if (this.blockContent.trim() !== '') input.blockContent = this.blockContent;
    if (this.reloadContent.trim() !== '') input.reloadContent = this.reloadContent;
    return input;
  }

  /** Client checks of the shown fields; keys are API field paths. */
  validate(): Record<string, string> {
    const e: Record<string, string> = {};
    const nameLabel = t(`siteForm.name.${this.edition}`);
    if (!this.name.trim()) e.name = t('validation.required', { field: nameLabel });
    else if (this.name.trim().length > SITE_RULES.nameMax)
      e.name = t('validation.tooLong', { field: nameLabel, max: SITE_RULES.nameMax });
    if (this.shows('domain')) {
      if (!this.domain.trim()) e.domain = t('validation.required', { field: t('siteForm.domain') });
      else if (!SITE_RULES.domain.test(this.domain.trim()))
        e.domain = t('validation.domain', { field: t('siteForm.domain') });
    }
    const range = (field: string, value: number | null, limits: { min: number; max: number }, label: string): void => {
      if (this.shows(field) && !wholeIn(value, limits)) e[field] = t('validation.range', { field: label, ...limits });
    };
    range('tokenExpirySeconds', this.tokenExpirySeconds, SITE_RULES.expiry, t('siteForm.tokenExpiry'));
    range('blockStatus', this.blockStatus, SITE_RULES.status, t('siteForm.blockStatus'));
    range('reloadStatus', this.reloadStatus, SITE_RULES.status, t('siteForm.reloadStatus'));
    range('powDifficulty', this.powDifficulty, SITE_RULES.pow, t('siteForm.pow'));
    for (const [field, value, label] of [
      ['tokenCookieName', this.tokenCookieName, t('siteForm.tokenCookie')],
      ['identityCookieName', this.identityCookieName, t('siteForm.identityCookie')],
    ] as const) {
      if (!this.shows(field)) continue;
      if (!value.trim()) e[field] = t('validation.required', { field: label });
      else if (!SITE_RULES.cookieName.test(value.trim())) e[field] = t('validation.cookieName', { field: label });
    }
    if (this.shows('sourceIp') && this.sourceIp.mode === 'custom') {
      const header = this.sourceIp.customHeader.trim();
      if (!header) e['sourceIp.customHeader'] = t('validation.required', { field: t('siteForm.customHeader') });
      else if (!SITE_RULES.header.test(header))
        e['sourceIp.customHeader'] = t('validation.header', { field: t('siteForm.customHeader') });
    }
    return e;
  }

  /** Every field an engine error names (it may report several fields and lines at once). */
  fieldErrors(error: unknown): { field: string; message: string; line: number | null }[] {
    if (!(error instanceof ApiError)) return [];
    return error.parts().flatMap((part) => this.fieldError(part) ?? []);
  }

  /**
   * An engine error as a field message: the field path (array entries folded onto their list, with
   * the line number) and the text. No field when the form does not show it.
   */
  fieldError(error: unknown): { field: string; message: string; line: number | null } | null {
    if (!(error instanceof ApiError) || !error.field) return null;
    let field = error.field;
    let line = typeof error.params.line === 'number' ? error.params.line : null;
    const entry = /^(.+)\.(\d+)$/.exec(field);
    if (entry && (LINE_FIELDS as readonly string[]).includes(entry[1] ?? '')) {
      field = entry[1] ?? field;
      line = Number(entry[2]) + 1;
    }
    if (!this.shows(field)) return null;
    if (line === null) return { field, message: errorMessage(error), line };
    const detail = detailText(error);
    return { field, message: t('site.error.line', { field: fieldLabel(field), line, detail }), line };
  }

  /** The current value of a field (API path), to tell whether it changed since an engine error. */
  valueOf(field: string): string {
    let value: unknown = { ...this.toInput(), blockContent: this.blockContent, reloadContent: this.reloadContent };
    for (const part of field.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return JSON.stringify(value ?? null);
  }

  #snapshot(): string {
    return JSON.stringify({
      ...this.toInput(),
      blockContent: this.blockContent,
      reloadContent: this.reloadContent,
      numbers: [this.tokenExpirySeconds, this.blockStatus, this.reloadStatus, this.powDifficulty],
      lists: [this.checkList, this.passList, this.blockList, this.sourceIp.trustedSources],
    });
  }
}
