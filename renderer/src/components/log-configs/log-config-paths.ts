/**
 * Pure helpers of the log configuration pages: the input path a refusal names, whatever spelling it
 * came in (zod's `fields.2.regex` from the form's own check, the engine's `fields[2].regex`), and the
 * default name of a copy.
 */

/** `fields.2.regex` and `fields[2].regex` both as `fields[2].regex`; `time.format.custom` as it is. */
export function problemPath(field: string): string {
  return field.replace(/^fields\.(\d+)(?=\.|$)/, 'fields[$1]');
}

/** The index of the field area a path names, or null. */
export function areaIndex(field: string): number | null {
  const match = /^fields\[(\d+)\]/.exec(problemPath(field));
  return match ? Number(match[1]) : null;
}

/** The name a copy gets unless another is typed (the engine's default too). */
export function copyName(name: string, maxLength: number): string {
  const suffix = ' copy';
  return `${name.slice(0, Math.max(0, maxLength - suffix.length))}${suffix}`;
}
