import type { EventConditionInput } from '#engine/shared';
import { cmpOf, compare, type Cmp } from './compare.ts';
import type { RelationFn, RelationNode } from './relation.ts';
import { asNumber, asText, intelOf } from './values.ts';

type LogRecord = Readonly<Record<string, unknown>>;

const EXACT = 0;
const REGEX = 1;
const NUMBER = 2;

interface Condition {
  type: typeof EXACT | typeof REGEX | typeof NUMBER;
  field: number;
  re: RegExp | null;
  cmp: Cmp;
  num: number;
}

/** A rough price of testing a condition, to order `&` and `|` operands (exact: one shared Map lookup). */
export function conditionCost(c: EventConditionInput): number {
  if (c.filter === 'number') return 2;
  if (c.mode === 'exact') return 1;
  return 8 + Math.min(c.value.length, 64) / 8;
}

/**
 * A gate of a simple event: exact values of one field of which the record must have one for the
 * event to match (a necessary condition read from its relation, never a sufficient one).
 */
export interface Gate {
  field: number;
  values: string[];
}

/**
 * The gate of a relation, or null when it has none: a label on an exact condition gates on its
 * value; `&` takes its operands' narrowest gate (every operand must hold); `|` the union of its
 * operands' gates when all of them gate on the same field (one of them must hold); `!` none.
 */
export function gateOf(
  node: RelationNode,
  exact: (label: string) => { field: number; value: string } | null,
): Gate | null {
  switch (node.kind) {
    case 'label': {
      const c = exact(node.label);
      return c === null ? null : { field: c.field, values: [c.value] };
    }
    case 'not':
      return null;
    case 'and': {
      let best: Gate | null = null;
      for (const operand of node.operands) {
        const gate = gateOf(operand, exact);
        if (gate !== null && (best === null || gate.values.length < best.values.length)) best = gate;
      }
      return best;
    }
    case 'or': {
      let field = -1;
      const values = new Set<string>();
      for (const operand of node.operands) {
        const gate = gateOf(operand, exact);
        if (gate === null || (field !== -1 && gate.field !== field)) return null;
        field = gate.field;
        gate.values.forEach((v) => values.add(v));
      }
      return { field, values: [...values] };
    }
  }
}

/** The identity of a condition: conditions equal in it are tested once per record. */
export function conditionKey(c: EventConditionInput): string {
  const value = c.filter === 'number' ? String(Number(c.value)) : c.value;
  return `${c.field}\u0000${c.filter}\u0000${c.mode}\u0000${value}`;
}

/**
 * Everything one log's records are tested with, compiled once per configure: the distinct fields
 * and conditions of the simple events that read the log (deduplicated across events), and the
 * relations of those events. Per record, a field is read and converted at most once, a condition
 * tested at most once and a simple event evaluated at most once, all on demand: the stamp arrays
 * say what the current record (`seq`) already has, so nothing is reset or allocated per record.
 * Exact matches on one field share one Map lookup (value -> the condition it satisfies).
 */
export class LogPlan<S = unknown> {
  record: LogRecord = {};
  seq = 0;
  readonly fieldNames: string[] = [];
  private readonly fieldIndex = new Map<string, number>();
  private readonly conds: Condition[] = [];
  private readonly condIndex = new Map<string, number>();
  private readonly exactGroups: (Map<string, number> | undefined)[] = [];
  readonly simples: { event: S; relation: RelationFn<LogPlan<S>>; gate: Gate | null }[] = [];

  /** The enabled simple events (plan indices, in definition order) that `matchOutputs` evaluates. */
  private outputs: Int32Array = new Int32Array(0);
  /** Positions in `outputs` of the events without a gate, ascending: evaluated on every record. */
  private free = new Int32Array(0);
  /** Fields that gate outputs, and per such field: value -> positions in `outputs` of the events it lets through. */
  private gateFields = new Int32Array(0);
  private gateMaps: Map<string, Int32Array>[] = [];

  private textSeq = new Float64Array(0);
  private texts: (string | null)[] = [];
  private numSeq = new Float64Array(0);
  private nums = new Float64Array(0);
  private groupSeq = new Float64Array(0);
  private groupHit = new Int32Array(0);
  private condSeq = new Float64Array(0);
  private condVal = new Uint8Array(0);
  private simpleSeq = new Float64Array(0);
  private simpleVal = new Uint8Array(0);
  private intelSeq = -1;
  private intel: Readonly<Record<string, unknown>> | null = null;

  constructor(readonly log: string) {}

  /** The index of a field (registered on first use). */
  field(name: string): number {
    let index = this.fieldIndex.get(name);
    if (index === undefined) {
      index = this.fieldNames.length;
      this.fieldNames.push(name);
      this.fieldIndex.set(name, index);
      this.exactGroups.push(undefined);
    }
    return index;
  }

  /** The slot of a condition whose regex (if any) is known to compile; equal conditions share one. */
  condition(c: EventConditionInput): number {
    const key = conditionKey(c);
    const known = this.condIndex.get(key);
    if (known !== undefined) return known;
    const slot = this.conds.length;
    const field = this.field(c.field);
    if (c.filter === 'number') {
      this.conds.push({ type: NUMBER, field, re: null, cmp: cmpOf(c.mode as '>='), num: Number(c.value) });
    } else if (c.mode === 'exact') {
      this.conds.push({ type: EXACT, field, re: null, cmp: 0, num: 0 });
      let group = this.exactGroups[field];
      if (group === undefined) this.exactGroups[field] = group = new Map();
      group.set(c.value, slot);
    } else {
      this.conds.push({ type: REGEX, field, re: new RegExp(c.value), cmp: 0, num: 0 });
    }
    this.condIndex.set(key, slot);
    return slot;
  }

  /** An exact condition's field and value (for gates), or null for other conditions. */
  exactOf(c: EventConditionInput): { field: number; value: string } | null {
    return c.filter !== 'number' && c.mode === 'exact' ? { field: this.field(c.field), value: c.value } : null;
  }

  /** Adds a simple event's compiled relation and its gate (`gateOf`); returns its index. */
  addSimple(event: S, relation: RelationFn<LogPlan<S>>, gate: Gate | null = null): number {
    this.simples.push({ event, relation, gate });
    return this.simples.length - 1;
  }

  /**
   * Indexes the enabled simple events (plan indices, in the order their firings come) by their
   * gates, so a record evaluates the events without a gate and, per gating field, only the events
   * its value lets through: one Map lookup per field instead of one test per event.
   */
  indexOutputs(outputs: Int32Array): void {
    this.outputs = outputs;
    const free: number[] = [];
    const byField = new Map<number, Map<string, number[]>>();
    outputs.forEach((index, pos) => {
      const gate = this.simples[index]!.gate;
      if (gate === null) {
        free.push(pos);
        return;
      }
      let map = byField.get(gate.field);
      if (map === undefined) byField.set(gate.field, (map = new Map<string, number[]>()));
      for (const value of gate.values) {
        const list = map.get(value);
        if (list === undefined) map.set(value, [pos]);
        else list.push(pos);
      }
    });
    this.free = Int32Array.from(free);
    this.gateFields = Int32Array.from(byField.keys());
    this.gateMaps = [...byField.values()].map(
      (map) => new Map([...map].map(([v, list]) => [v, Int32Array.from(list)])),
    );
  }

  /**
   * The positions in the indexed outputs of the events that match the current record, ascending
   * (so firings keep definition order), written to `out`; returns how many. Gives what testing
   * every output with `simple` gives: a gated event that its gate keeps out cannot match.
   */
  matchOutputs(out: Int32Array): number {
    const outputs = this.outputs;
    const free = this.free;
    let n = 0;
    for (let i = 0; i < free.length; i++) {
      const pos = free[i]!;
      if (this.simple(outputs[pos]!)) out[n++] = pos;
    }
    const fields = this.gateFields;
    let sorted = true;
    for (let g = 0; g < fields.length; g++) {
      const text = this.text(fields[g]!);
      if (text === null) continue;
      const list = this.gateMaps[g]!.get(text);
      if (list === undefined) continue;
      for (let i = 0; i < list.length; i++) {
        const pos = list[i]!;
        if (!this.simple(outputs[pos]!)) continue;
        if (n > 0 && out[n - 1]! > pos) sorted = false;
        out[n++] = pos;
      }
    }
    if (!sorted) {
      for (let i = 1; i < n; i++) {
        const pos = out[i]!;
        let j = i - 1;
        while (j >= 0 && out[j]! > pos) {
          out[j + 1] = out[j]!;
          j--;
        }
        out[j + 1] = pos;
      }
    }
    return n;
  }

  /** Sizes the per-record arrays once everything is registered. */
  seal(): void {
    const fields = this.fieldNames.length;
    this.textSeq = new Float64Array(fields).fill(-1);
    this.texts = new Array<string | null>(fields).fill(null);
    this.numSeq = new Float64Array(fields).fill(-1);
    this.nums = new Float64Array(fields);
    this.groupSeq = new Float64Array(fields).fill(-1);
    this.groupHit = new Int32Array(fields);
    this.condSeq = new Float64Array(this.conds.length).fill(-1);
    this.condVal = new Uint8Array(this.conds.length);
    this.simpleSeq = new Float64Array(this.simples.length).fill(-1);
    this.simpleVal = new Uint8Array(this.simples.length);
  }

  /** Starts a record: stamps from earlier records no longer count. */
  begin(record: LogRecord, seq: number): void {
    this.record = record;
    this.seq = seq;
  }

  /** A field of the current record as text, or null. */
  text(field: number): string | null {
    if (this.textSeq[field] === this.seq) return this.texts[field]!;
    const text = asText(this.value(field));
    this.textSeq[field] = this.seq;
    this.texts[field] = text;
    return text;
  }

  /** A field of the current record as a finite number, or NaN. */
  num(field: number): number {
    if (this.numSeq[field] === this.seq) return this.nums[field]!;
    const n = asNumber(this.value(field));
    this.numSeq[field] = this.seq;
    this.nums[field] = n;
    return n;
  }

  /**
   * A field's value: the record's own, else the intelligence sub-field of that name (values.ts'
   * fieldValue, with the record's `intel` object looked up once per record).
   */
  private value(field: number): unknown {
    const name = this.fieldNames[field]!;
    const own = this.record[name];
    if (own !== undefined) return own;
    if (this.intelSeq !== this.seq) {
      this.intelSeq = this.seq;
      this.intel = intelOf(this.record);
    }
    return this.intel === null ? undefined : this.intel[name];
  }

  /** The outcome of a condition for the current record. */
  cond(slot: number): boolean {
    if (this.condSeq[slot] === this.seq) return this.condVal[slot] === 1;
    const c = this.conds[slot]!;
    let matched: boolean;
    if (c.type === EXACT) matched = this.exactHit(c.field) === slot;
    else if (c.type === REGEX) {
      const text = this.text(c.field);
      matched = text !== null && c.re!.test(text);
    } else {
      const n = this.num(c.field);
      matched = n === n && compare(c.cmp, n, c.num);
    }
    this.condSeq[slot] = this.seq;
    this.condVal[slot] = matched ? 1 : 0;
    return matched;
  }

  /** Whether a simple event of this log matches the current record. */
  simple(index: number): boolean {
    if (this.simpleSeq[index] === this.seq) return this.simpleVal[index] === 1;
    const matched = this.simples[index]!.relation(this);
    this.simpleSeq[index] = this.seq;
    this.simpleVal[index] = matched ? 1 : 0;
    return matched;
  }

  private exactHit(field: number): number {
    if (this.groupSeq[field] === this.seq) return this.groupHit[field]!;
    const text = this.text(field);
    const hit = text === null ? -1 : (this.exactGroups[field]!.get(text) ?? -1);
    this.groupSeq[field] = this.seq;
    this.groupHit[field] = hit;
    return hit;
  }
}
