import type { z } from 'zod';

/**
 * Free text an operator types (names, domains, list entries, remarks) is shown in the console, written
 * into generated files and logged. Characters that make text lie about itself are refused at the edge:
 * control characters (a newline ends an nginx comment and starts a directive), bidirectional overrides
 * and isolates (U+202E shows `exe.txt` for `txt.exe`), line and paragraph separators, and lone UTF-16
 * surrogates (no valid encoding exists for them).
 */

// C0 and C1 controls (matching them is the point), DEL, bidi marks, embeddings, overrides and isolates, and U+2028 / U+2029.
// eslint-disable-next-line no-control-regex -- control characters are what these patterns look for.
const SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
// The same, less tab, line feed and carriage return: for content that is text by nature (a page).
const MULTI_LINE =
  // eslint-disable-next-line no-control-regex -- as above.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const codePoint = (char: string): string =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` may not be stored, as a reason and parameters the console translates. */
export interface TextIssue {
  reason: 'control_char' | 'lone_surrogate';
  codePoint: string;
  position: number;
}

/**
 * Why `value` may not be stored as free text, or null. `multiline` allows tab, LF and CR (page content),
 * never the other controls.
 */
export function textIssue(value: string, multiline = false): TextIssue | null {
  const bad = (multiline ? MULTI_LINE : SINGLE_LINE).exec(value);
  if (bad) return { reason: 'control_char', codePoint: codePoint(bad[0]), position: bad.index + 1 };
  const lone = LONE_SURROGATE.exec(value);
  if (lone) return { reason: 'lone_surrogate', codePoint: codePoint(lone[0]), position: lone.index + 1 };
  return null;
}

/** The same, as the English sentence logs and API clients read. */
export function textProblem(value: string, multiline = false): string | null {
  const issue = textIssue(value, multiline);
  if (!issue) return null;
  return issue.reason === 'control_char'
    ? `must not contain control or bidirectional-formatting characters (${issue.codePoint} at position ${issue.position})`
    : `must be valid Unicode text (a lone surrogate ${issue.codePoint} at position ${issue.position})`;
}

/** A zod refinement refusing what `textProblem` refuses: `z.string().superRefine(visibleText())`. */
export const visibleText =
  (multiline = false) =>
  (value: string, ctx: z.RefinementCtx): void => {
    const issue = textIssue(value, multiline);
    if (issue) ctx.addIssue({ code: 'custom', message: textProblem(value, multiline) ?? '', params: { ...issue } });
  };
