/**
 * Minimal operators and transformations for engine tests, so the engine's behaviour is tested
 * independently of the real tables (engine/waf/operators, engine/waf/transformations).
 */
import type { OperatorDef, Transformation } from '../../../../engine/waf/types.ts';

const rx: OperatorDef = {
  name: 'rx',
  compile(arg) {
    const re = new RegExp(arg, 's');
    return (input, state) => {
      const m = re.exec(input);
      if (!m) return false;
      if (state.capture) for (let i = 0; i < m.length && i < 10; i++) state.captures[i] = m[i];
      return true;
    };
  },
};

const num = (name: string, test: (a: number, b: number) => boolean): OperatorDef => ({
  name,
  compile(arg) {
    const b = Number.parseInt(arg, 10) || 0;
    return (input) => test(Number.parseInt(input, 10) || 0, b);
  },
});

export const OPS: ReadonlyMap<string, OperatorDef> = new Map<string, OperatorDef>([
  ['rx', rx],
  ['eq', num('eq', (a, b) => a === b)],
  ['lt', num('lt', (a, b) => a < b)],
  ['ge', num('ge', (a, b) => a >= b)],
  ['gt', num('gt', (a, b) => a > b)],
  ['streq', { name: 'streq', compile: (arg) => (input) => input === arg }],
  ['contains', { name: 'contains', compile: (arg) => (input) => input.includes(arg) }],
  ['within', { name: 'within', compile: (arg) => (input) => arg.includes(input) }],
  ['unconditionalmatch', { name: 'unconditionalMatch', compile: () => () => true }],
  [
    // @pm whose required list names only the first phrase: deliberately incomplete, so tests can
    // see the engine trust OperatorDef.required.
    'pm',
    {
      name: 'pm',
      compile: (arg) => (input) => arg.split(' ').some((w) => input.toLowerCase().includes(w)),
      required: (arg) => [arg.split(' ')[0] ?? ''],
    },
  ],
]);

export const TRANSFORMS: ReadonlyMap<string, Transformation> = new Map<string, Transformation>([
  ['lowercase', (s) => s.toLowerCase()],
  ['urldecode', (s) => s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))],
  ['removewhitespace', (s) => s.replace(/\s+/g, '')],
]);
