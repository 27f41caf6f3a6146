/**
 * What the transformation trie and the prefilter made of each value, kept across transactions.
 * Transformations and the prefilter are pure functions of the value, so a record computed once
 * is right for every later request; header values (User-Agent, Accept, Host), cookie and argument
 * names and common paths repeat from request to request, and then cost nothing to transform or
 * scan again.
 *
 * Bounded by an estimate of the bytes held (records, values, transformed forms, prefilter answers,
 * misses), not by entries: a flood of unique or long values only empties the cache, and no
 * request pays more than it would without it. Values longer than LONGEST stay per transaction.
 */
import type { Bits } from './bits.ts';

export interface Operand {
  value: string;
  /** The prefilter's bits for `value`, once asked. */
  bits: Bits | null | undefined;
  /** Bit CompiledRule.memo set: that rule's operator is known not to match `value`. */
  misses: Bits | undefined;
}

/** One distinct value and what the transformation trie made of it so far. */
export interface ValueRecord {
  /** Index: trie node (CompiledRule.transformId); [0] is the value itself. */
  readonly operands: (Operand | undefined)[];
}

const LONGEST = 512;
/** About 24 MB; the estimates below are rough (object headers, map entries, one byte per char). */
const BUDGET = 24 * 1024 * 1024;
const RECORD_BYTES = 96;
const OPERAND_BYTES = 64;

/** A record with room for every trie node (one allocation, no growth). */
export function newRecord(value: string, nodes: number): ValueRecord {
  const operands = new Array<Operand | undefined>(nodes);
  operands[0] = { value, bits: undefined, misses: undefined };
  return { operands };
}

export class ValueCache {
  /** `nodes`: the size of the rule set's transformation trie. */
  constructor(private readonly nodes: number) {}

  private readonly records = new Map<string, ValueRecord>();
  private bytes = 0;

  /** The shared record of a short value, or undefined for a long one. */
  get(value: string): ValueRecord | undefined {
    if (value.length > LONGEST) return undefined;
    let r = this.records.get(value);
    if (r === undefined) {
      if (this.bytes > BUDGET) {
        this.records.clear();
        this.bytes = 0;
      }
      r = newRecord(value, this.nodes);
      this.records.set(value, r);
      this.bytes += RECORD_BYTES + OPERAND_BYTES + 8 * this.nodes + value.length;
    }
    return r;
  }

  /** Accounts for a transformed form kept on one of the records. */
  heldOperand(value: string): void {
    this.bytes += OPERAND_BYTES + value.length;
  }

  /** Accounts for a bit set kept on one of the operands. */
  heldBits(words: number): void {
    this.bytes += 32 + 8 * words;
  }
}
