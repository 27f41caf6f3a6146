import { cepScenarios } from './cep.ts';
import { combinedScenarios } from './combined.ts';
import { countScenarios } from './count.ts';
import { distinctAverageScenarios } from './distinct-average.ts';
import { simpleScenarios } from './simple.ts';
import { timeScenarios } from './time.ts';
import type { Scenario } from './types.ts';

export type { Scenario };
export const SCENARIO_GROUPS: Record<string, Scenario[]> = {
  simple: simpleScenarios,
  count: countScenarios,
  'distinct and average': distinctAverageScenarios,
  cep: cepScenarios,
  combined: combinedScenarios,
  time: timeScenarios,
};
