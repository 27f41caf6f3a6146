import { EventEngine, type EventDefinition, type SourceInfo } from '#engine/events';
import type { StoredBlock } from '#engine/log-store';
import { RampartError } from '#engine/shared';
import { referencedEvents } from './events-service.ts';

/** The part of the log store a dry run reads: one log's blocks, oldest first. */
export interface DryRunStore {
  blocks(log: string, range: { from: number; to: number; oldestFirst?: boolean }): AsyncIterable<StoredBlock>;
}

export interface DryRunResult {
  records: number;
  firings: number;
  keys: { key: string | null; firings: number; first: number }[];
  truncated: boolean;
  tookMs: number;
}

export interface DryRunOptions {
  /** Records read at most (default 2,000,000). */
  maxRecords?: number;
  /** Time spent at most (default 20 s). */
  maxMs?: number;
}

/**
 * Runs one event over a stored time range of its sources in a private engine: its firings are
 * counted per trigger-object value and nothing else happens (no trigger log, no rule, no ban).
 * Records are fed in time order across the sources, each at its own `_timestamp`.
 */
export async function dryRun(
  event: EventDefinition,
  all: readonly EventDefinition[],
  source: (configId: string) => SourceInfo | undefined,
  store: DryRunStore,
  range: { from: number; to: number },
  options: DryRunOptions = {},
): Promise<DryRunResult> {
  const started = performance.now();
  const maxRecords = options.maxRecords ?? 2_000_000;
  const maxMs = options.maxMs ?? 20_000;
  if (event.sources.length === 0)
    throw new RampartError('EVENT_NO_SOURCE', 'choose a log source before a dry run', { field: 'sources' });
  // The event itself, on, and the events it names (filters), as they are.
  const byId = new Map(all.map((e) => [e.id, e]));
  const needed = new Map<string, EventDefinition>([[event.id, { ...event, enabled: true }]]);
  const pending = referencedEvents(event);
  while (pending.length > 0) {
    const id = pending.pop()!;
    const found = byId.get(id);
    if (found === undefined || needed.has(id)) continue;
    needed.set(id, { ...found, enabled: false });
    pending.push(...referencedEvents(found));
  }
  const engine = new EventEngine();
  engine.configure([...needed.values()], source);

  const logs = [...new Set(event.sources.map((id) => source(id)?.log).filter((l): l is string => l !== undefined))];
  const keys = new Map<string | null, { firings: number; first: number }>();
  let records = 0;
  let firings = 0;
  const truncated = await readInTimeOrder(store, logs, range, (log, record, at) => {
    records++;
    for (const firing of engine.observe(log, record, at)) {
      if (firing.eventId !== event.id) continue;
      firings++;
      const entry = keys.get(firing.key);
      if (entry === undefined) keys.set(firing.key, { firings: 1, first: at });
      else entry.firings++;
    }
    return records < maxRecords && performance.now() - started <= maxMs;
  });
  return {
    records,
    firings,
    keys: [...keys]
      .map(([key, v]) => ({ key, ...v }))
      .sort((a, b) => b.firings - a.firings || a.first - b.first)
      .slice(0, 100),
    truncated,
    tookMs: Math.round(performance.now() - started),
  };
}

/**
 * Feeds the records of several logs in a time range to `visit`, oldest block first across the logs,
 * each with its `_timestamp`. `visit` answers false to stop; the answer is true when it did.
 */
export async function readInTimeOrder(
  store: DryRunStore,
  logs: readonly string[],
  range: { from: number; to: number },
  visit: (log: string, record: Readonly<Record<string, unknown>>, at: number) => boolean,
): Promise<boolean> {
  const readers = logs.map((log) => store.blocks(log, { ...range, oldestFirst: true })[Symbol.asyncIterator]());
  try {
    const heads = await Promise.all(readers.map(async (r) => (await r.next()).value as StoredBlock | undefined));
    for (;;) {
      let next = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head !== undefined && (next < 0 || head.second < heads[next]!.second)) next = i;
      }
      if (next < 0) return false;
      const block = heads[next]!;
      let going = true;
      for (let row = 0; row < block.lines.length && going; row++) {
        const record = block.record(row);
        if (record === undefined) continue;
        const at = typeof record._timestamp === 'number' ? record._timestamp : block.second;
        if (at < range.from || at >= range.to) continue;
        going = visit(block.log, record, at);
      }
      if (!going) return true;
      heads[next] = (await readers[next]!.next()).value as StoredBlock | undefined;
    }
  } finally {
    await Promise.all(
      readers.map(async (r) => {
        await r.return?.(undefined);
      }),
    );
  }
}
