/** The parsed form of a PCRE pattern, shared by the translator and the required-literal analysis. */
import type { ByteSet } from './byte-set.ts';

export type GroupKind = 'capture' | 'group' | 'ahead' | 'notAhead' | 'behind' | 'notBehind' | 'atomic';

/** A single byte position: literal, class, escape or dot. `set` is final (negation applied). */
export interface SetNode {
  t: 'set';
  set: ByteSet;
  caseless: boolean;
}
export interface AltNode {
  t: 'alt';
  alts: Node[][];
}
export interface GroupNode {
  t: 'group';
  kind: GroupKind;
  body: AltNode;
  /** PCRE group number for captures. */
  index: number;
}
export interface QuantNode {
  t: 'quant';
  body: Node;
  min: number;
  max: number;
  lazy: boolean;
  possessive: boolean;
}
/** A zero-width assertion, already in JavaScript syntax. */
export interface AssertNode {
  t: 'assert';
  src: string;
  /** True when it can only hold at the end of the subject (`\z`, `$` with DOLLAR_ENDONLY). */
  endOnly: boolean;
}
export interface BackrefNode {
  t: 'backref';
  index: number;
  name?: string;
  caseless: boolean;
}
export type Node = SetNode | AltNode | GroupNode | QuantNode | AssertNode | BackrefNode;
