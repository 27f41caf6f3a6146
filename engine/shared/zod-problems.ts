import type { z } from 'zod';
import type { ErrorParams, FieldProblem } from './errors.ts';

/**
 * What a person needs to say a zod issue in their own language: its code and its bounds
 * (`{ code: 'too_big', maximum: 64, origin: 'string' }`, `{ code: 'invalid_format', format: 'email' }`).
 * The English message stays alongside for logs and for clients without a catalogue.
 */
export function issueParams(issue: z.core.$ZodIssue): ErrorParams {
  const params: Record<string, string | number | boolean> = { code: issue.code };
  switch (issue.code) {
    case 'too_big':
      params.maximum = Number(issue.maximum);
      params.origin = issue.origin;
      if (issue.inclusive !== undefined) params.inclusive = issue.inclusive;
      break;
    case 'too_small':
      params.minimum = Number(issue.minimum);
      params.origin = issue.origin;
      if (issue.inclusive !== undefined) params.inclusive = issue.inclusive;
      break;
    case 'invalid_format':
      params.format = issue.format;
      if (issue.pattern !== undefined) params.pattern = String(issue.pattern);
      break;
    case 'invalid_type':
      params.expected = issue.expected;
      break;
    case 'invalid_value':
      params.values = issue.values.map(String).join(', ');
      break;
    case 'not_multiple_of':
      params.divisor = Number(issue.divisor);
      break;
    case 'unrecognized_keys':
      params.keys = issue.keys.join(', ');
      break;
    case 'custom':
      for (const [key, value] of Object.entries(issue.params ?? {})) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') params[key] = value;
      }
      break;
    default:
      break;
  }
  return params;
}

/**
 * Every issue of a failed parse as a field problem: `field` is the dotted path (`where` for the
 * input as a whole: `body`, `query`, `path`), `message` names it, `params` carry the issue's code
 * and bounds. Both HTTP edges answer them with the same 400 body.
 */
export function zodProblems(error: z.ZodError, where: string): FieldProblem[] {
  return error.issues.map((issue): FieldProblem => {
    let field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') field = [field, issue.keys[0]].filter(Boolean).join('.');
    const name = field || where;
    const message = issue.code === 'unrecognized_keys' ? 'is not a known field' : issue.message;
    return { field: name, message: `${name}: ${message}`, params: issueParams(issue) };
  });
}
