/**
 * The text of a block (docs/DESIGN.md 2a): one log's records of one second.
 *
 * Format 2 (what the store writes): one line per record, the JSON array `[shape, v1, ..., vn]` of its
 * values in the order of its shape's keys, then one last line, the block's header
 * `{"shapes":[["k1",...,"kn"],...]}`. Key names are stored once per block instead of once per
 * record: an access record takes half the bytes, so a scan reads and decodes half as much.
 *
 * Format 1 (stores written before): one JSON object per line, no header. A block's first character
 * tells them apart (`[` or `{`); both are read.
 *
 * A row's line holds its values as JSON, escaped as they are in a record's JSON: a filter's
 * substring test on the line (search `mayMatch`) finds a value in either format.
 */

export type Row = Record<string, unknown>;

const OPEN_ARRAY = 0x5b;
/** `,null]`: the tail of a row whose last value is spliced in from its cached JSON. */
const NULL_TAIL = 5;

/** The JSON of frozen objects (an intelligence result is shared by a client's requests). */
const frozenJson = new WeakMap<object, string>();

/** What JSON.stringify keeps of an object's members. */
const storable = (value: unknown): boolean =>
  value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

function sameKeys(shape: readonly string[], keys: readonly string[]): boolean {
  if (shape.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (shape[i] !== keys[i]) return false;
  return true;
}

/**
 * A record's values as a row holds them, made ahead of the append (the Kafka thread makes them, off
 * the engine's thread): the JSON array of its values, `[v1,...,vn]`, one string a thread hands over
 * cheaply. Only for a record whose values are all storable and that is not changed between this
 * and its append.
 */
export type EncodedValues = string;

/** A record's EncodedValues, or undefined when it has no values or one JSON would leave out. */
export function encodeValues(record: Readonly<Row>): EncodedValues | undefined {
  const values: unknown[] = Object.values(record);
  if (values.length === 0 || !values.every(storable)) return undefined;
  return JSON.stringify(values);
}

/**
 * Encodes the rows of one block, gathering its shapes (the key lists its records have). Records of
 * one source nearly always share one shape, so a row costs one pass over its keys.
 */
export class RowEncoder {
  readonly #shapes: string[][] = [];
  readonly #byKeys = new Map<string, number>();
  #last = -1;
  /** Bytes the header will take. */
  headerBytes = '{"shapes":[]}'.length;

  /** The record's row: `[shape, values...]` as JSON (undefined, function and symbol values left out, as JSON.stringify does). */
  encode(record: Readonly<Row>, encoded?: EncodedValues): string {
    if (encoded !== undefined) return this.#encoded(record, encoded);
    let keys = Object.keys(record);
    let values: unknown[] = Object.values(record);
    if (!values.every(storable)) {
      keys = keys.filter((_, i) => storable(values[i]));
      values = values.filter(storable);
    }
    const shape = this.#last >= 0 ? this.#shapes[this.#last]! : undefined;
    values.unshift(shape !== undefined && sameKeys(shape, keys) ? this.#last : this.#shapeOf(keys));
    // A frozen last value (an access record's `_intelligence_result`, shared by a client's
    // requests) is serialised once for all the records holding it and spliced in.
    const last = values[values.length - 1];
    if (values.length < 2 || typeof last !== 'object' || last === null || !Object.isFrozen(last))
      return JSON.stringify(values);
    let json = frozenJson.get(last);
    if (json === undefined) frozenJson.set(last, (json = JSON.stringify(last)));
    values[values.length - 1] = null;
    const row = JSON.stringify(values);
    return `${row.slice(0, row.length - NULL_TAIL)}${json}]`;
  }

  /** A row from values encoded ahead: only the shape is found here. */
  #encoded(record: Readonly<Row>, encoded: EncodedValues): string {
    const keys = Object.keys(record);
    const shape = this.#last >= 0 ? this.#shapes[this.#last]! : undefined;
    const index = shape !== undefined && sameKeys(shape, keys) ? this.#last : this.#shapeOf(keys);
    return `[${index},${encoded.slice(1)}`;
  }

  /** The header line, written after the rows. */
  header(): string {
    return `{"shapes":${JSON.stringify(this.#shapes)}}`;
  }

  #shapeOf(keys: readonly string[]): number {
    const id = keys.join('\u0000');
    let index = this.#byKeys.get(id);
    if (index === undefined) {
      index = this.#shapes.length;
      this.#shapes.push([...keys]);
      this.#byKeys.set(id, index);
      this.headerBytes += Buffer.byteLength(JSON.stringify(keys)) + 1;
    }
    this.#last = index;
    return index;
  }
}

/** A block's rows: each row's line (for substring tests) and its record. */
export interface BlockRows {
  /** One line per record, in row order. */
  readonly lines: readonly string[];
  /**
   * The record of a row (a fresh object each call), or undefined past the last row or when the row
   * cannot be read (a damaged block: bad JSON, a shape its header lacks). Readers skip such rows.
   */
  record(row: number): Row | undefined;
}

/** Reads a block of either format. Its lines are split, and its header read, on first use. */
export function decodeBlock(text: string): BlockRows {
  return text.charCodeAt(0) === OPEN_ARRAY ? new ShapedBlock(text) : new JsonLinesBlock(text);
}

/** The number of rows in a block's text, without splitting it. */
export function rowCount(text: string): number {
  let count = text.charCodeAt(0) === OPEN_ARRAY ? 0 : 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** Format 1: a JSON object per line. */
class JsonLinesBlock implements BlockRows {
  #lines: string[] | undefined;
  constructor(private readonly text: string) {}

  get lines(): readonly string[] {
    return (this.#lines ??= this.text.split('\n'));
  }

  record(row: number): Row | undefined {
    const line = this.lines[row];
    if (line === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(line);
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Format 2: value rows, then the header with the shapes. */
class ShapedBlock implements BlockRows {
  #lines: string[] | undefined;
  #shapes: string[][] | undefined;
  readonly #end: number;
  constructor(private readonly text: string) {
    this.#end = text.lastIndexOf('\n');
  }

  get lines(): readonly string[] {
    return (this.#lines ??= this.text.slice(0, this.#end).split('\n'));
  }

  record(row: number): Row | undefined {
    const line = this.lines[row];
    if (line === undefined) return undefined;
    let values: unknown;
    try {
      this.#shapes ??= (JSON.parse(this.text.slice(this.#end + 1)) as { shapes: string[][] }).shapes;
      values = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!Array.isArray(values) || !Array.isArray(this.#shapes)) return undefined;
    const keys = this.#shapes[values[0] as number];
    if (!Array.isArray(keys)) return undefined;
    const record: Row = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      // Assigning `__proto__` would set the prototype; JSON.parse makes it an own property.
      if (key === '__proto__')
        Object.defineProperty(record, key, {
          value: values[i + 1],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else record[key] = values[i + 1];
    }
    return record;
  }
}
