/**
 * The site form's state: the API's site with every list as one text (one entry per line), the
 * fields each edition and run mode show, and whether anything changed since the last load or save.
 * It checks with the engine's own site schema (`siteInputSchema`, from the contracts) and says a
 * refusal, its own or the engine's, the same way; the engine stays the judge of the rest (lists,
 * edition rules).
 */
import {
  siteInputSchema,
  siteView,
  type AccessMethod,
  type AccountExtraction,
  type AntiBot,
  type Edition,
  type ListMode,
  type RunMode,
  type SiteInput,
  type SiteList,
  type SiteView,
  type SourceIpMode,
  type XffMode,
} from '$lib/contracts.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage, fieldLabel } from '$lib/errors.ts';
import { t, type MessageKey } from '$lib/i18n.svelte.ts';
import { schemaProblems } from '$lib/validation.ts';

const shape = siteInputSchema.shape;
const range = (schema: { minValue: number | null; maxValue: number | null }) => ({
  min: schema.minValue ?? undefined,
  max: schema.maxValue ?? undefined,
});

/** The schema's bounds, for the inputs' own limits (maxlength, min / max). */
export const SITE_BOUNDS = {
  nameMax: shape.name.maxLength ?? undefined,
  tokenExpiry: range(shape.tokenExpirySeconds.unwrap()),
  status: range(shape.blockStatus.unwrap()),
  pow: range(shape.powDifficulty.unwrap()),
  port: range(shape.cname.unwrap().shape.httpPort.unwrap()),
};

/** A site as the engine fills in what is not given: the schema's defaults. */
export const SITE_DEFAULTS = siteInputSchema.parse({ name: '-' });

/** The closed vocabularies of a site, from the schema of its view. */
export const RUN_MODES = siteView.shape.runMode.options;
export const LIST_MODES = siteView.shape.listMode.options;
export const SOURCE_IP_MODES = siteView.shape.sourceIp.shape.mode.options;
export const XFF_MODES = siteView.shape.sourceIp.shape.xffMode.options;
export const ORIGIN_PROTOCOLS = siteView.shape.cname.shape.originProtocol.options;

export type OriginProtocol = SiteView['cname']['originProtocol'];
/** What the engine shows of a CNAME site's uploaded certificate (never its key). */
export type SiteCertificateView = NonNullable<SiteView['certificate']>;

/** The access methods each edition offers (the engine refuses the others). */
export const EDITION_ACCESS_METHODS: Readonly<Record<Edition, readonly AccessMethod[]>> = {
  A: ['plugin', 'pluginless'],
  B: ['cname', 'plugin', 'bypass'],
};

export interface ListDraft {
  pathEnabled: boolean;
  paths: string;
  ipEnabled: boolean;
  ips: string;
}

export type ListKey = 'checkList' | 'passList' | 'blockList';

/** CNAME access as the form holds it: a port may be emptied while typing. */
export interface CnameDraft {
  http: boolean;
  https: boolean;
  httpPort: number | null;
  httpsPort: number | null;
  originProtocol: OriginProtocol;
  originAddress: string;
  originVerifyTls: boolean;
}

/** The CNAME ports a person may empty (the schema then refuses them as required). */
const CNAME_PORTS = ['httpPort', 'httpsPort'] as const;

/** The form's own labels of the fields it checks (others are named by the catalogue's `field.*`). */
const LABELS: Readonly<Record<string, MessageKey>> = {
  domain: 'siteForm.domain',
  tokenCookieName: 'siteForm.tokenCookie',
  identityCookieName: 'siteForm.identityCookie',
  tokenExpirySeconds: 'siteForm.tokenExpiry',
  blockStatus: 'siteForm.blockStatus',
  reloadStatus: 'siteForm.reloadStatus',
  powDifficulty: 'siteForm.pow',
  'sourceIp.customHeader': 'siteForm.customHeader',
  'cname.http': 'cname.protocols',
  'cname.https': 'cname.protocols',
  'cname.httpPort': 'cname.httpPort',
  'cname.httpsPort': 'cname.httpsPort',
  'cname.originProtocol': 'cname.originProtocol',
  'cname.originAddress': 'cname.originAddress',
};

/** What a field's format is, said where the schema's pattern refuses it. */
const FORMATS: Readonly<Record<string, MessageKey>> = {
  domain: 'validation.domain',
  tokenCookieName: 'validation.cookieName',
  identityCookieName: 'validation.cookieName',
  'sourceIp.customHeader': 'validation.header',
};

/** Number fields a person may empty: empty is "required", not a wrong type. */
const NUMBER_FIELDS = ['tokenExpirySeconds', 'blockStatus', 'reloadStatus', 'powDifficulty'] as const;

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

export class SiteDraft {
  readonly edition: Edition;
  name = $state('');
  domain = $state('');
  runMode = $state<RunMode>(SITE_DEFAULTS.runMode);
  accessMethod = $state<AccessMethod>(SITE_DEFAULTS.accessMethod);
  listMode = $state<ListMode>(SITE_DEFAULTS.listMode);
  checkList = $state<ListDraft>(emptyList());
  passList = $state<ListDraft>(emptyList());
  blockList = $state<ListDraft>(emptyList());
  tokenCookieName = $state(SITE_DEFAULTS.tokenCookieName);
  identityCookieName = $state(SITE_DEFAULTS.identityCookieName);
  tokenExpirySeconds = $state<number | null>(SITE_DEFAULTS.tokenExpirySeconds);
  blockStatus = $state<number | null>(SITE_DEFAULTS.blockStatus);
  /** Empty means the engine's default page. */
  blockContent = $state('');
  reloadStatus = $state<number | null>(SITE_DEFAULTS.reloadStatus);
  reloadContent = $state('');
  browserFeatureDetection = $state(SITE_DEFAULTS.browserFeatureDetection);
  queryThreatStore = $state(SITE_DEFAULTS.queryThreatStore);
  hideServerInfo = $state(SITE_DEFAULTS.hideServerInfo);
  sourceIp = $state<{ mode: SourceIpMode; xffMode: XffMode; trustedSources: string; customHeader: string }>({
    ...SITE_DEFAULTS.sourceIp,
    trustedSources: SITE_DEFAULTS.sourceIp.trustedSources.join('\n'),
  });
  accountExtraction = $state<AccountExtraction>({ ...SITE_DEFAULTS.accountExtraction });
  miniProgramProtection = $state(SITE_DEFAULTS.miniProgramProtection);
  /** Edited on the rules page; kept as loaded so a save here does not change it. */
  antiBot = $state<AntiBot>({ ...SITE_DEFAULTS.antiBot });
  powDifficulty = $state<number | null>(SITE_DEFAULTS.powDifficulty);
  cname = $state<CnameDraft>({ ...SITE_DEFAULTS.cname });
  pluginMode = $state<SiteView['pluginMode']>(SITE_DEFAULTS.pluginMode);
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
    this.cname = { ...site.cname };
    this.pluginMode = site.pluginMode;
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
    // The CNAME tab stays in pass-through: the traffic still goes through Rampart to the origin.
    if (top === 'cname') return this.#showsCname(field);
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

  /** A field of the CNAME tab: shown for CNAME access, a port with its protocol, TLS checks for an HTTPS origin. */
  #showsCname(field: string): boolean {
    // A plugin site in inline mode: Rampart's port for it and the upstream (nginx keeps TLS).
    if (this.accessMethod === 'plugin' && this.pluginMode === 'inline') {
      if (field === 'cname.originVerifyTls') return this.cname.originProtocol === 'https';
      return !['cname.https', 'cname.httpsPort'].includes(field);
    }
    if (this.edition !== 'B' || this.accessMethod !== 'cname') return false;
    if (field === 'cname.httpPort') return this.cname.http;
    if (field === 'cname.httpsPort') return this.cname.https;
    if (field === 'cname.originVerifyTls') return this.cname.originProtocol === 'https';
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
      tokenExpirySeconds: this.tokenExpirySeconds ?? SITE_DEFAULTS.tokenExpirySeconds,
      blockStatus: this.blockStatus ?? SITE_DEFAULTS.blockStatus,
      reloadStatus: this.reloadStatus ?? SITE_DEFAULTS.reloadStatus,
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
      powDifficulty: this.powDifficulty ?? SITE_DEFAULTS.powDifficulty,
      cname: {
        ...this.cname,
        httpPort: this.cname.httpPort ?? SITE_DEFAULTS.cname.httpPort,
        httpsPort: this.cname.httpsPort ?? SITE_DEFAULTS.cname.httpsPort,
        originAddress: this.cname.originAddress.trim(),
      },
      pluginMode: this.pluginMode,
    };
    // An empty page content is left out: the engine fills in its default page.
    if (this.blockContent.trim() !== '') input.blockContent = this.blockContent;
    if (this.reloadContent.trim() !== '') input.reloadContent = this.reloadContent;
    return input;
  }

  /**
   * The form checked with the engine's site schema, and the edition's rules the schema cannot state;
   * keys are API field paths, only of the fields the form shows.
   */
  validate(): Record<string, string> {
    const numbers = Object.fromEntries(NUMBER_FIELDS.map((field) => [field, this[field]]));
    const input = this.toInput();
    const cname = { ...input.cname, httpPort: this.cname.httpPort, httpsPort: this.cname.httpsPort };
    const problems = schemaProblems(siteInputSchema, { ...input, ...numbers, cname });
    if (this.edition === 'B' && this.domain.trim() === '') problems.push(this.#required('domain'));
    if (this.sourceIp.mode === 'custom' && this.sourceIp.customHeader.trim() === '') {
      problems.push(this.#required('sourceIp.customHeader'));
    }
    const e: Record<string, string> = {};
    for (const problem of problems) {
      const mapped = this.fieldError(problem);
      if (mapped && e[mapped.field] === undefined) e[mapped.field] = mapped.message;
    }
    return e;
  }

  /** A field the engine requires here, as the engine says it (`field: is required`). */
  #required(field: string): ApiError {
    return new ApiError(400, 'VALIDATION_FAILED', `${field}: is required`, field, {
      code: 'too_small',
      minimum: 1,
      origin: 'string',
    });
  }

  /** A field's name as the form labels it. */
  label(field: string): string {
    if (field === 'name') return t(`siteForm.name.${this.edition}`);
    const key = LABELS[field];
    return key ? t(key) : fieldLabel(field);
  }

  /** A refused field's message: the engine's code and bounds said in the console's words. */
  #message(error: ApiError, field: string): string {
    if (error.code !== 'VALIDATION_FAILED') return errorMessage(error);
    const label = this.label(field);
    const { code, origin, minimum, format } = error.params;
    const emptied =
      code === 'invalid_type' &&
      (NUMBER_FIELDS.some((number) => number === field && this[number] === null) ||
        CNAME_PORTS.some((port) => `cname.${port}` === field && this.cname[port] === null));
    if (emptied || (code === 'too_small' && origin === 'string' && minimum === 1)) {
      return t('validation.required', { field: label });
    }
    const formatKey = FORMATS[field];
    if (code === 'invalid_format' && format === 'regex' && formatKey) return t(formatKey, { field: label });
    return t('error.VALIDATION_FAILED', { field: label, detail: detailText(error) });
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
    if (line === null) return { field, message: this.#message(error, field), line };
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
      numbers: [
        this.tokenExpirySeconds,
        this.blockStatus,
        this.reloadStatus,
        this.powDifficulty,
        this.cname.httpPort,
        this.cname.httpsPort,
      ],
      lists: [this.checkList, this.passList, this.blockList, this.sourceIp.trustedSources],
    });
  }
}
