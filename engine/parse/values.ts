import { capText } from '#engine/shared';
import { PARSE_LIMITS, type FieldType } from './config.ts';

/**
 * Extracted text and JSON values to a field's type. A value that does not convert exactly is missing
 * (undefined), never a guess: `12abc`, `1.5` and `9007199254740993` are not integers, `NaN` and `1e999`
 * are not floats. An empty string is missing too: spec 7's message for a required one is "must not be
 * empty".
 */
const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function integerOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (!INTEGER.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : undefined;
}

export function floatOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (!FLOAT.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

/** Extracted text (a regex capture) as the field's type. */
export function fromText(text: string, type: FieldType): string | number | undefined {
  if (text === '') return undefined;
  switch (type) {
    case 'string':
      return capText(text, PARSE_LIMITS.fieldValue);
    case 'integer':
      return integerOf(text);
    case 'float':
      return floatOf(text);
  }
}

/** A JSON member's value as the field's type: an object or array is its JSON text for a string field. */
export function fromJson(value: unknown, type: FieldType): string | number | undefined {
  if (typeof value === 'string') return fromText(value, type);
  if (typeof value === 'number') {
    if (type === 'string') return String(value);
    if (type === 'integer') return Number.isSafeInteger(value) ? value : undefined;
    return Number.isFinite(value) ? value : undefined;
  }
  if (type !== 'string' || value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return String(value);
  return capText(JSON.stringify(value), PARSE_LIMITS.fieldValue);
}

/** A member name or dotted path, split once. */
export interface JsonPath {
  readonly source: string;
  /** Null when the source has no dot (the exact key is the only reading). */
  readonly parts: readonly string[] | null;
}

export function jsonPath(source: string): JsonPath {
  return { source, parts: source.includes('.') ? source.split('.') : null };
}

/** The value at `path` in a parsed JSON object: the exact key first, else the nested path. Own members only. */
export function valueAt(object: object, path: JsonPath): unknown {
  if (Object.hasOwn(object, path.source)) return (object as Record<string, unknown>)[path.source];
  if (path.parts === null) return undefined;
  let current: unknown = object;
  for (const part of path.parts) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
