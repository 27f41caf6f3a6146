/**
 * Pure helpers of the event pages: the path of an input as the form names it, whatever spelling a
 * refusal used (zod's `conditions.1.value`, the engine's `conditions[1].value`).
 */

/** A path as the form names its inputs: `conditions[1].value`, `steps[0]`, `window`, `sources`. */
export function formPath(field: string): string {
  const path = field.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
  if (/^sources(\[\d+\])?$/.test(path)) return 'sources';
  if (/^window(\.\w+)?$/.test(path)) return 'window';
  const item = /^(conditions|steps|members)\[(\d+)\](?:\.(\w+))?$/.exec(path);
  if (item) {
    const [, list, index, prop] = item;
    return prop === undefined || prop === 'label' ? `${list}[${index}]` : `${list}[${index}].${prop}`;
  }
  return path;
}
