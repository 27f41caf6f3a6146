import type { ParseProblemCode, ProblemParams } from '../problems.ts';

/**
 * The error of one directive that cannot be compiled. compileRuleSet reports it with the
 * directive's file and line (and its code and parameters) and leaves the directive out; any other
 * error is a bug and propagates.
 */
export class CompileError extends Error {
  constructor(
    readonly code: ParseProblemCode,
    readonly params: ProblemParams,
    message: string,
  ) {
    super(message);
  }
}
