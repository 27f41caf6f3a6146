import type { ConfigDocument } from '#engine/config-store';
import type { SubjectKind } from './operations.ts';

/** One changed object: its kind, id, and for per-site objects its site. */
export interface SubjectRef {
  kind: SubjectKind;
  /** null: a singleton (the global configuration, the licence, the IP lists). */
  id: string | null;
  siteId?: string;
}

/** Where the objects are read: the configuration as it is now, and the bans (kept apart from it). */
export interface SubjectSources {
  config(): Readonly<ConfigDocument>;
  ban(id: string): unknown;
  /** The account an e-mailed link's token belongs to, while the link is usable. */
  linkAccount?(token: string): string | undefined;
}

/**
 * The object as stored now, or undefined when there is none (not created yet, deleted, or an id
 * that names nothing). Read from the stored configuration rather than from the request or the
 * answer: that is what the change did, in the shape the engine keeps, with nothing the answer adds
 * (an activation link) and nothing the request left out.
 */
export function readSubject(sources: SubjectSources, ref: SubjectRef): unknown {
  const doc = sources.config();
  const byId = <T extends { id: string }>(items: readonly T[]): T | undefined =>
    ref.id === null ? undefined : items.find((item) => item.id === ref.id);
  switch (ref.kind) {
    case 'account':
      return byId(doc.accounts);
    case 'site':
      return byId(doc.sites);
    case 'siteGlobal':
      return doc.siteGlobal;
    case 'gateway':
      return doc.gateway;
    case 'licence':
      return doc.licence ?? undefined;
    case 'ruleSet':
      return doc.ruleSet;
    case 'storage':
      return doc.storage;
    case 'ipLists':
      return doc.ipLists;
    case 'adminSettings':
      return doc.admin;
    case 'basicRuleGroup': {
      if (ref.siteId === undefined || ref.id === null) return undefined;
      const groups = doc.basicRules[ref.siteId]?.groups;
      return groups && Object.hasOwn(groups, ref.id) ? groups[ref.id] : undefined;
    }
    case 'customRule':
      return ref.siteId === undefined ? undefined : byId(doc.basicRules[ref.siteId]?.customRules ?? []);
    case 'wafExclusion':
      return ref.siteId === undefined ? undefined : byId(doc.basicRules[ref.siteId]?.exclusions ?? []);
    case 'contentTypes':
      // null: the site uses Rampart's default list.
      return ref.siteId === undefined ? undefined : { types: doc.basicRules[ref.siteId]?.contentTypes ?? null };
    case 'secondOpinion':
      return ref.siteId === undefined ? undefined : { enabled: doc.basicRules[ref.siteId]?.secondOpinion === true };
    case 'logConfig':
      return byId(doc.logConfigs);
    case 'event':
      return byId(doc.events);
    case 'rule':
      return byId(doc.rules);
    case 'ban':
      return ref.id === null ? undefined : sources.ban(ref.id);
  }
}

/**
 * The dotted paths of the leaves that differ between two snapshots (arrays compared whole), at
 * most `limit` of them. Worked out before masking, so a rotated Access Key shows as changed.
 */
export function changedFields(before: unknown, after: unknown, limit = 100): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (out.length >= limit) return;
    const objects =
      typeof a === 'object' &&
      a !== null &&
      !Array.isArray(a) &&
      typeof b === 'object' &&
      b !== null &&
      !Array.isArray(b);
    if (!objects) {
      if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path || '.');
      return;
    }
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
      walk(left[key], right[key], path ? `${path}.${key}` : key);
    }
  };
  walk(before, after, '');
  return out;
}
