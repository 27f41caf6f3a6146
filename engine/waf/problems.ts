/**
 * What can be wrong with a rule set, as codes: each `ParseProblem` (parser, loader, compiler) names
 * one of these with its parameters, so a console says it in its own language; the English `message`
 * beside it is for logs. Parameter names are fixed per code (see each site that reports it); `in`
 * names the directive a lexer, variable, operator or action problem was found in.
 */
export const PARSE_PROBLEM_CODES = [
  // lexer
  'unterminated_quote',
  'text_after_quote',
  // directives
  'unknown_directive',
  'chain_not_followed',
  'chain_at_end',
  'missing_id',
  'action_list_arguments',
  'action_chain',
  'default_action_phase',
  'marker_arguments',
  'missing_argument',
  'update_target_arguments',
  'update_action_arguments',
  'bad_id_range',
  'rule_missing_variables',
  'rule_missing_operator',
  'rule_extra_arguments',
  // operators
  'missing_operator',
  'missing_operator_name',
  'unknown_operator',
  'operator_space',
  'operator_argument_missing',
  // variables
  'missing_variables',
  'missing_variable_name',
  'unknown_variable',
  'not_a_collection',
  'variable_unexpected',
  'variables_trailing_pipe',
  'unterminated_key_regex',
  'unterminated_key_quote',
  'empty_key',
  // actions
  'unknown_action',
  'unterminated_action_quote',
  'action_text_after_quote',
  'action_value_missing',
  'action_value_unexpected',
  // loading files
  'folder_missing',
  'no_rule_files',
  'file_outside',
  'file_unreadable',
  'include_arguments',
  'include_too_deep',
  'include_outside',
  'include_escapes',
  'include_missing',
  'include_loop',
  'duplicate_id',
  'data_file_remote',
  'data_file_outside',
  'data_file_missing',
  // compiling
  'setvar_no_collection',
  'bad_phase',
  'unknown_transformation',
  'data_file_not_loaded',
  'chain_without_rule',
  'unsupported_operator',
  'operator_invalid',
  'unsupported_action',
  'rule_without_id',
  'duplicate_rule',
  'bad_rule_range',
  'ctl_no_value',
  'unsupported_ctl',
  'bad_target',
  'compile_failed',
] as const;

export type ParseProblemCode = (typeof PARSE_PROBLEM_CODES)[number];

export type ProblemParams = Readonly<Record<string, string | number>>;

/** A parser's failed result: the English sentence and what it stands for. */
export interface ProblemFailure {
  ok: false;
  message: string;
  code: ParseProblemCode;
  params: ProblemParams;
}

export function failure(code: ParseProblemCode, params: ProblemParams, message: string): ProblemFailure {
  return { ok: false, message, code, params };
}
