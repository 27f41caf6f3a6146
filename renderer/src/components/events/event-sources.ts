/**
 * The log configurations an event can read (spec 2.4: each site's access log, custom logs), with
 * the names of the sites the access ones belong to, as the event pages show them.
 */
import { listLogConfigs, listSites, type LogConfigView } from '$lib/contracts.ts';
import { call } from '$lib/app.ts';
import { sourceText } from './event-vocabulary.ts';

export interface SourceCatalogue {
  configs: LogConfigView[];
  byId: ReadonlyMap<string, LogConfigView>;
  siteNames: ReadonlyMap<string, string>;
}

export const NO_SOURCES: SourceCatalogue = { configs: [], byId: new Map(), siteNames: new Map() };

export async function loadSources(): Promise<SourceCatalogue> {
  const [configs, sites] = await Promise.all([call(listLogConfigs), call(listSites)]);
  return {
    configs: configs.items,
    byId: new Map(configs.items.map((c) => [c.id, c])),
    siteNames: new Map(sites.items.map((s) => [s.id, s.name])),
  };
}

/** A source id by name; an id no configuration has any more as it is. */
export function sourceName(catalogue: SourceCatalogue, id: string): string {
  const config = catalogue.byId.get(id);
  return config ? sourceText(config, catalogue.siteNames) : id;
}

/** The log a configuration's records are searched in (an access configuration: its site's access log). */
export function logOf(config: LogConfigView): string | null {
  return config.log ?? (config.siteId ? `${config.kind}:${config.siteId}` : null);
}
