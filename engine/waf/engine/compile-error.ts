/**
 * The error of one directive that cannot be compiled. compileRuleSet reports it with the
 * directive's file and line and leaves the directive out; any other error is a bug and propagates.
 */
export class CompileError extends Error {}
