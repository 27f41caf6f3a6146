/**
 * A form checked with the engine's own schema (from the contracts): a failed parse becomes the
 * problems the engine would answer for the same input (400 VALIDATION_FAILED, zod's issue code and
 * bounds as params, engine/shared/zod-problems.ts), so the console says them with the messages it
 * already has for the engine's answers.
 */
import type { z } from 'zod';
import { ApiError } from './api.ts';
import { zodProblems } from './contracts.ts';

export function schemaProblems(schema: z.ZodType, value: unknown): ApiError[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return zodProblems(result.error, 'body').map(
    (problem) => new ApiError(400, 'VALIDATION_FAILED', problem.message, problem.field, problem.params ?? {}),
  );
}
