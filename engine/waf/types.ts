/**
 * The contracts between the parts of the WAF (parser, compiler, operators, transformations,
 * evaluation, body processors, detectors). Read engine/waf/README.md first.
 *
 * Byte semantics: ModSecurity works on bytes. Every value inside the WAF (variables, transformation
 * inputs and outputs, operator inputs, captures) is a *binary string*: one JS char per byte, char
 * codes 0 to 255 (what `buffer.toString('latin1')` gives). Regexes therefore run byte-wise, like
 * PCRE without UTF mode; `utf8toUnicode` and friends interpret those bytes as UTF-8 themselves.
 */
import type { ParseProblemCode, ProblemParams } from './problems.ts';

// ---------------------------------------------------------------------------------------------
// Parser output: SecLang as written, with file and line of every directive.
// ---------------------------------------------------------------------------------------------

export interface SourcePosition {
  file: string;
  line: number;
}

/** `ARGS`, `ARGS:foo`, `ARGS:/^foo/`, `&ARGS`, `!ARGS:foo`, `TX:'/regex/'`. */
export interface VariableSelector {
  /** Upper-case collection or variable name: ARGS, REQUEST_HEADERS, TX, REQUEST_URI, ... */
  name: string;
  /** Absent: the whole collection. */
  key?: { kind: 'literal'; value: string } | { kind: 'regex'; source: string };
  /** `&` prefix: the number of matching entries instead of their values. */
  count: boolean;
  /** `!` prefix: exclude the matching entries from the rule's other selectors. */
  exclude: boolean;
}

export interface ParsedOperator {
  /** Without the @, case as written (`rx`, `pmFromFile`). `rx` when the rule gave a bare regex. */
  name: string;
  negated: boolean;
  /** Raw argument text (macros like %{tx.foo} not expanded). */
  argument: string;
}

/** One action from an action list: `id:942100`, `t:lowercase`, `setvar:'tx.x=+%{tx.y}'`, `chain`. */
export interface ParsedAction {
  name: string;
  /** Value with surrounding quotes removed; undefined when the action has none. */
  value?: string;
}

export type Directive =
  | (SourcePosition & {
      kind: 'rule';
      variables: VariableSelector[];
      operator: ParsedOperator;
      actions: ParsedAction[];
      /** The next rule of a chain (the rule with `chain` among its actions owns it). */
      chained?: Directive & { kind: 'rule' };
    })
  | (SourcePosition & { kind: 'action'; actions: ParsedAction[] })
  | (SourcePosition & { kind: 'marker'; label: string })
  | (SourcePosition & { kind: 'defaultAction'; actions: ParsedAction[] })
  /** Any other directive (SecRuleEngine, SecRequestBodyLimit, SecRuleRemoveById, ...), arguments unquoted. */
  | (SourcePosition & { kind: 'config'; name: string; args: string[] });

/**
 * A parse or load failure, always with the file and line it concerns: `code` and `params` say what
 * it is (see ../problems.ts), `message` says it in English for logs.
 */
export interface ParseProblem extends SourcePosition {
  message: string;
  code: ParseProblemCode;
  params: ProblemParams;
}

// ---------------------------------------------------------------------------------------------
// Operators and transformations: one explicit table each, one file per entry.
// ---------------------------------------------------------------------------------------------

/** Per-evaluation scratch the engine passes to an operator. */
export interface MatchState {
  /** True when the rule has the `capture` action: fill `captures` (0 = whole match, 1..9 groups). */
  capture: boolean;
  captures: (string | undefined)[];
}

export type OperatorFn = (input: string, state: MatchState) => boolean;

export interface CompileEnv {
  /** Lines of a data file named by @pmFromFile / @ipMatchFromFile, resolved beside the rule file. */
  readDataFile(name: string, from: SourcePosition): string[];
}

export interface OperatorDef {
  /** Case-insensitive name without @. */
  name: string;
  /**
   * Compiles the argument once. Arguments with macros (%{...}) are expanded by the engine and
   * compiled per distinct value (cached). Throws an Error with a message on a bad argument.
   */
  compile(argument: string, env: CompileEnv): OperatorFn;
  /**
   * Optional: strings of which every input the compiled operator matches contains at least one,
   * compared ASCII case-insensitively (A-Z as a-z); an empty list when it never matches; undefined
   * when no such list can be named. The engine scans each distinct operator input once for the
   * strings of all rules and runs the operator only where one of its own occurs, so the list must
   * be sound: a wrong one silently loses matches. Called for static arguments only.
   */
  required?(argument: string, env: CompileEnv): readonly string[] | undefined;
}

/** A transformation over a binary string. Must be pure, total, and linear in the input's length. */
export type Transformation = (input: string) => string;

// ---------------------------------------------------------------------------------------------
// The request and response the WAF inspects, and what it answers.
// ---------------------------------------------------------------------------------------------

export interface WafRequest {
  method: string;
  /** The request target as sent: `/a/b?x=1` (origin form) or absolute form. */
  uri: string;
  /** `HTTP/1.1` */
  protocol: string;
  /** In order, names as sent (case preserved), values as binary strings. */
  headers: readonly (readonly [string, string])[];
  /** Raw body bytes or null when there is none. */
  body: Buffer | null;
  /**
   * The body is only the start of a longer one (a proxy inspects the first bytes and streams the
   * rest): its processors do not report a body cut short (no final multipart boundary, JSON or
   * XML ending early) as a body error; what they read before the cut is inspected.
   */
  bodyPartial?: boolean;
  remoteAddr: string;
  remotePort: number;
  serverAddr: string;
  serverPort: number;
}

export interface WafResponse {
  status: number;
  protocol: string;
  headers: readonly (readonly [string, string])[];
  body: Buffer | null;
}

export interface MatchedRule {
  id: string;
  phase: number;
  message: string;
  data: string;
  severity: string;
  tags: string[];
  file: string;
  line: number;
  /** The variable that matched, e.g. ARGS:q */
  variable: string;
  /** The value that matched, after the rule's transformations (MATCHED_VAR). */
  value: string;
}

export interface WafOutcome {
  /** A disruptive action (deny, drop, block with the anomaly rules' deny) fired. */
  interrupted: boolean;
  status: number;
  /** Every rule that matched and was not `nolog`, in order. */
  matched: MatchedRule[];
  /** Inbound anomaly score at the end of the transaction (tx.anomaly_score / tx.inbound_anomaly_score). */
  score: number;
  /** tx.inbound_anomaly_score_threshold, when the rule set sets one (CRS does, default 5). */
  threshold?: number;
}
