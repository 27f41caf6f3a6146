import { Readable } from 'node:stream';
import { RampartError } from '#engine/shared';
import { kindOfLog, type LogKind } from '#engine/log-store';
import { scalarText, type Row } from '#engine/search';
import { customLogName } from '#engine/log-configs';
import { AUDIT_LOG } from '#engine/audit';
import { bindRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  exportLogs,
  getLogRecord,
  getStorage,
  listLogs,
  logFields,
  logHistogram,
  purgeLogs,
  searchLogs,
  tailLogs,
  updateStorage,
  type LogView,
  type StorageView,
} from '../schemas.ts';

/** Live tails open at once (each holds a connection and filters every written block). */
const MAX_TAILS = 32;
const TAIL_KEEPALIVE_MS = 15_000;

/** Logs behind the event-rule module (spec 1.2). */
const GATED: ReadonlySet<LogKind> = new Set(['raw', 'trigger', 'custom']);

/** The audit trail says who changed what: for administrators, who alone may change everything. */
const isAuditReader = (caller: Caller | undefined): boolean => caller?.account.role === 'administrator';

export function logRoutes(deps: ApiDeps): AnyRoute[] {
  const { search, logStore } = deps;
  let tails = 0;

  /** The logs people can pick: per site, the gated ones, the audit log (administrators), and any other log the store holds. */
  async function catalogue(caller: Caller | undefined): Promise<LogView[]> {
    const spans = new Map((await logStore.spans()).map((s) => [s.log, s]));
    if (!isAuditReader(caller)) spans.delete(AUDIT_LOG);
    const views: LogView[] = [];
    const add = (log: string, label: string, siteId: string | null): void => {
      const kind = kindOfLog(log);
      const module = GATED.has(kind) ? ('advanced' as const) : null;
      const span = spans.get(log);
      spans.delete(log);
      views.push({
        log,
        kind,
        label,
        siteId,
        module,
        available: module === null || deps.licence.isActive(module),
        oldest: span?.oldest ?? null,
        newest: span?.newest ?? null,
      });
    };
    add('trigger', 'trigger', null);
    add('raw', 'raw', null);
    if (isAuditReader(caller)) add(AUDIT_LOG, AUDIT_LOG, null);
    for (const site of deps.sites.list()) {
      // A: logs are named with the site configuration ID; B: with the site name.
      const label = deps.edition === 'A' ? site.id : site.name;
      add(`access:${site.id}`, label, site.id);
      add(`detection:${site.id}`, label, site.id);
      add(`probe:${site.id}`, label, site.id);
      if (deps.edition === 'B') add(`messaging:${site.id}`, label, site.id);
    }
    // Custom log configurations (TCP and BROKER): named with the configuration's name.
    for (const config of deps.logConfigs.list())
      if (config.kind === 'custom') add(customLogName(config.id), config.name, null);
    for (const span of spans.values()) add(span.log, span.log, null);
    return views;
  }

  /**
   * The log a request names: known (a site's log, a gated log, or one the store holds), and its
   * module active. Decided from the name and at most one seek, not from the whole catalogue: this
   * runs before every search.
   */
  async function readable(log: string, caller: Caller | undefined): Promise<void> {
    const kind = kindOfLog(log);
    if (kind === 'audit') {
      if (!isAuditReader(caller)) {
        throw new RampartError('FORBIDDEN_ROLE', 'The audit log needs the role administrator', {
          params: { role: caller?.account.role ?? '' },
        });
      }
      if (log === AUDIT_LOG) return;
    }
    if (GATED.has(kind)) {
      if (!deps.licence.isActive('advanced')) {
        throw new RampartError(
          'MODULE_NOT_ACTIVE',
          `The ${kind} log needs the advanced module, which is not activated`,
          {
            params: { module: 'advanced' },
          },
        );
      }
      if (log === kind) return;
    }
    const siteId = log.slice(log.indexOf(':') + 1);
    const siteLog =
      (kind === 'access' || kind === 'detection' || (kind === 'messaging' && deps.edition === 'B')) &&
      deps.sites.list().some((site) => site.id === siteId);
    const configLog = log === customLogName(siteId) && deps.logConfigs.list().some((c) => c.id === siteId);
    if (siteLog || configLog || (await logStore.span(log)) !== null) return;
    throw new RampartError('NOT_FOUND', `log: no log named ${log}`, { field: 'log', params: { log } });
  }

  async function storageView(caller: Caller | undefined): Promise<StorageView> {
    const labels = new Map((await catalogue(caller)).map((v) => [v.log, v.label]));
    const usage = await logStore.usage();
    const budget = logStore.budget;
    return {
      retentionDays: deps.storage.retentionDays(),
      logs: (await logStore.logs()).map((s) => ({
        log: s.log,
        kind: kindOfLog(s.log),
        label: labels.get(s.log) ?? s.log,
        approxBytes: s.approxBytes,
        oldest: s.oldest,
        newest: s.newest,
      })),
      disk: {
        usedBytes: usage.usedBytes,
        freeBytes: usage.freeBytes,
        totalBytes: usage.totalBytes,
        minFreePercent: budget ? Math.round((budget.minFreeRatio ?? 0.1) * 1000) / 10 : null,
        maxBytes: budget?.maxBytes ?? null,
      },
    };
  }

  return [
    bindRoute(listLogs, async ({ caller }) => ({ items: await catalogue(caller) })),
    bindRoute(searchLogs, async ({ body, caller }) => {
      await readable(body.log, caller);
      return search.search(body);
    }),
    bindRoute(logHistogram, async ({ body, caller }) => {
      await readable(body.log, caller);
      return search.histogram(body);
    }),
    bindRoute(logFields, async ({ body, caller }) => {
      await readable(body.log, caller);
      return search.fields(body);
    }),
    bindRoute(getLogRecord, async ({ params, query, caller }) => {
      const view = await search.record(params.id, query.around ?? 5);
      await readable(view.log, caller);
      return view;
    }),
    bindRoute(exportLogs, async ({ body, caller }) => {
      await readable(body.log, caller);
      // Checks the query before the download starts, so a bad one is a 400, not a broken file.
      await search.resolve(body);
      const records = search.each({ ...body, max: body.max ?? 100_000 });
      const stamp = new Date(deps.clock.now()).toISOString().replace(/[:.]/g, '-');
      const name = `${body.log.replace(/[^\w-]/g, '_')}-${stamp}`;
      if (body.format === 'ndjson') {
        return {
          fileName: `${name}.ndjson`,
          contentType: 'application/x-ndjson',
          content: Readable.from(ndjson(records)),
        };
      }
      return {
        fileName: `${name}.csv`,
        contentType: 'text/csv; charset=utf-8',
        content: Readable.from(csv(records, body.columns)),
      };
    }),
    bindRoute(tailLogs, async ({ query, reply, caller }) => {
      await readable(query.log, caller);
      if (tails >= MAX_TAILS) {
        throw new RampartError('RATE_LIMITED', `at most ${MAX_TAILS} live tails may be open at once`, {
          params: { limit: MAX_TAILS },
        });
      }
      let open = true;
      const stop = await search.tail({ log: query.log, query: query.query }, (id, record) => {
        if (open) reply.raw.write(`event: record\nid: ${id}\ndata: ${JSON.stringify({ id, record })}\n\n`);
      });
      tails++;
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-content-type-options': 'nosniff',
      });
      reply.raw.write(`: tail of ${query.log} for ${caller?.account.email ?? 'someone'}\n\n`);
      const keepalive = setInterval(() => reply.raw.write(': keepalive\n\n'), TAIL_KEEPALIVE_MS);
      keepalive.unref();
      reply.raw.on('close', () => {
        open = false;
        tails--;
        clearInterval(keepalive);
        stop();
      });
    }),
    bindRoute(getStorage, ({ caller }) => storageView(caller)),
    bindRoute(updateStorage, async ({ body, caller }) => {
      await deps.storage.setRetentionDays(body.retentionDays);
      return storageView(caller);
    }),
    bindRoute(purgeLogs, async ({ body, caller }) => {
      if (body.confirm !== body.log) {
        throw new RampartError('VALIDATION_FAILED', 'confirm: type the log name to confirm the purge', {
          field: 'confirm',
          params: { reason: 'confirm_mismatch' },
        });
      }
      const known = (await logStore.logs()).some((s) => s.log === body.log);
      if (!known) throw new RampartError('NOT_FOUND', `log: no records in ${body.log}`, { field: 'log' });
      await logStore.purge(body.log);
      deps.logger.warn({ log: body.log }, 'log purged from the console');
      return storageView(caller);
    }),
  ];
}

async function* ndjson(records: AsyncIterable<Row>): AsyncGenerator<string> {
  for await (const record of records) yield `${JSON.stringify(record)}\n`;
}

/** A CSV cell: quoted when needed, and a leading = + - @ defused so a spreadsheet does not run it. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = scalarText(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

async function* csv(records: AsyncIterable<Row>, columns?: readonly string[]): AsyncGenerator<string> {
  const row = (header: readonly string[], record: Row): string => `${header.map((c) => cell(record[c])).join(',')}\r\n`;
  const heading = (header: readonly string[]): string => `${header.map(cell).join(',')}\r\n`;
  if (columns) {
    yield heading(columns);
    for await (const record of records) yield row(columns, record);
    return;
  }
  // Without chosen columns: the fields of the first 100 records, in order of appearance.
  const held: Row[] = [];
  let header: string[] | undefined;
  for await (const record of records) {
    if (header) {
      yield row(header, record);
      continue;
    }
    held.push(record);
    if (held.length < 100) continue;
    header = fieldsOf(held);
    yield heading(header);
    for (const r of held.splice(0)) yield row(header, r);
  }
  if (!header) {
    header = fieldsOf(held);
    yield heading(header);
    for (const r of held) yield row(header, r);
  }
}

function fieldsOf(records: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}
