/**
 * How a site's exclusion of a Core Rule Set rule reads in the console: its target in words
 * ("parameter q", "whole rule"), its path ("every path", "paths starting with /api/"), the path
 * scopes a form offers, and the form's checks with the engine's own schema (engine/shared
 * rule-shape.ts), said as the console says the engine's refusals of the same input.
 */
import type { z } from 'zod';
import { ApiError } from '$lib/api.ts';
import { wafExclusionInputSchema } from '$lib/contracts.ts';
import { detailText } from '$lib/errors.ts';
import { t, type MessageKey } from '$lib/i18n.svelte.ts';
import { schemaProblems } from '$lib/validation.ts';

export type WafExclusionInput = z.input<typeof wafExclusionInputSchema>;

/** What an exclusion removes and where, without its reason: what a preview counts and a suggestion proposes. */
export interface ExclusionSpec {
  ruleId: number;
  target: string;
  path: string;
}

/** The periods of stored requests a preview counts and the suggestions are learned from, shortest first. */
export const LOOK_BACKS = ['24h', '7d', '30d'] as const;
export type LookBack = (typeof LOOK_BACKS)[number];

/** The fields of an exclusion a form shows, which the engine's refusals may name. */
export const EXCLUSION_FIELDS = ['ruleId', 'target', 'path', 'reason'] as const;
export type ExclusionField = (typeof EXCLUSION_FIELDS)[number];

/** Where an exclusion applies: one path exactly, every path that starts with one, or every path. */
export type PathScope = 'exact' | 'prefix' | 'every';
export const PATH_SCOPES: readonly PathScope[] = ['exact', 'prefix', 'every'];

export function scopeOf(path: string): PathScope {
  if (path === '') return 'every';
  return path.endsWith('*') ? 'prefix' : 'exact';
}

/** The path a scope gives to a typed path (`/api/` and prefix: `/api/*`); its `*` is the scope's, not the text's. */
export function pathFor(scope: PathScope, typed: string): string {
  const base = typed.trim().replace(/\*+$/, '');
  if (scope === 'every') return '';
  return scope === 'prefix' ? `${base}*` : base;
}

/** A path without the prefix's `*`, as a path field shows it. */
export function typedPath(path: string): string {
  return path.replace(/\*$/, '');
}

/** Collections whose entry the console names in words; others read as the WAF names them. */
const ENTRY_WORDS: Readonly<Record<string, MessageKey>> = {
  ARGS: 'exclusions.target.param',
  ARGS_GET: 'exclusions.target.queryParam',
  ARGS_POST: 'exclusions.target.bodyParam',
  ARGS_NAMES: 'exclusions.target.paramName',
  ARGS_GET_NAMES: 'exclusions.target.paramName',
  ARGS_POST_NAMES: 'exclusions.target.paramName',
  REQUEST_HEADERS: 'exclusions.target.header',
  REQUEST_HEADERS_NAMES: 'exclusions.target.headerName',
  REQUEST_COOKIES: 'exclusions.target.cookie',
  REQUEST_COOKIES_NAMES: 'exclusions.target.cookieName',
  FILES: 'exclusions.target.file',
  FILES_NAMES: 'exclusions.target.file',
};

const COLLECTION_WORDS: Readonly<Record<string, MessageKey>> = {
  ARGS: 'exclusions.target.allParams',
  ARGS_GET: 'exclusions.target.allQueryParams',
  ARGS_POST: 'exclusions.target.allBodyParams',
  ARGS_NAMES: 'exclusions.target.allParamNames',
  REQUEST_HEADERS: 'exclusions.target.allHeaders',
  REQUEST_COOKIES: 'exclusions.target.allCookies',
  REQUEST_BODY: 'exclusions.target.body',
  REQUEST_URI: 'exclusions.target.uri',
  REQUEST_FILENAME: 'exclusions.target.fileNamePath',
  QUERY_STRING: 'exclusions.target.queryString',
};

/** A target in words: `ARGS:q` is "parameter q", '' the whole rule; one the console has no words for as it is. */
export function targetText(target: string): string {
  if (target === '') return t('exclusions.target.whole');
  const colon = target.indexOf(':');
  const collection = (colon < 0 ? target : target.slice(0, colon)).toUpperCase();
  if (colon < 0) {
    const key = COLLECTION_WORDS[collection];
    return key ? t(key) : target;
  }
  const key = ENTRY_WORDS[collection];
  return key ? t(key, { name: target.slice(colon + 1) }) : target;
}

/** A path in words: every path, one path, or the paths a prefix starts. */
export function pathText(path: string): string {
  if (path === '') return t('exclusions.path.every');
  if (path.endsWith('*')) return t('exclusions.path.prefix', { prefix: path.slice(0, -1) });
  return t('exclusions.path.exact', { path });
}

export function fieldLabel(field: ExclusionField): string {
  return t(`exclusions.field.${field}`);
}

/** One problem of the schema or the engine at its field, in the console's language. */
export function problemText(problem: ApiError, field: ExclusionField): string {
  const { code, origin, minimum } = problem.params;
  if (code === 'too_small' && origin === 'string' && minimum === 1)
    return field === 'reason' ? t('exclusions.reasonRequired') : t('validation.required', { field: fieldLabel(field) });
  if (field === 'ruleId' && (code === 'too_small' || code === 'too_big' || code === 'invalid_type'))
    return t('exclusions.ruleIdInvalid');
  return t('error.VALIDATION_FAILED', { field: fieldLabel(field), detail: detailText(problem) });
}

function isField(field: string | undefined): field is ExclusionField {
  return (EXCLUSION_FIELDS as readonly (string | undefined)[]).includes(field);
}

/**
 * The client's checks of an exclusion, by field: the rule id as typed (digits), then the engine's
 * schema over the input the form would send.
 */
export function exclusionErrors(ruleIdText: string, input: WafExclusionInput): Partial<Record<ExclusionField, string>> {
  const errors: Partial<Record<ExclusionField, string>> = {};
  const typed = ruleIdText.trim();
  if (typed === '') errors.ruleId = t('validation.required', { field: fieldLabel('ruleId') });
  else if (!/^\d+$/.test(typed)) errors.ruleId = t('exclusions.ruleIdInvalid');
  for (const problem of schemaProblems(wafExclusionInputSchema, input)) {
    if (isField(problem.field)) errors[problem.field] ??= problemText(problem, problem.field);
  }
  return errors;
}

/**
 * The engine's refusal of an exclusion at the field it names: the same rule, target and path twice
 * (NAME_TAKEN on ruleId) said as such; null for a refusal that names no field the form shows.
 */
export function refusalAtField(error: unknown): { field: ExclusionField; message: string } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'NAME_TAKEN') return { field: 'ruleId', message: t('exclusions.taken') };
  if (error.code !== 'VALIDATION_FAILED') return null;
  for (const part of error.parts())
    if (isField(part.field)) return { field: part.field, message: problemText(part, part.field) };
  return null;
}
