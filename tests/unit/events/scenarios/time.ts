import { count, hit } from '../fixtures.ts';
import type { Scenario } from './types.ts';

const ip1 = '10.0.0.1';
const at = (ip: string, t: number) => ({ t, record: hit(ip) });

export const timeScenarios: Scenario[] = [
  {
    name: 'time: a clock stepping back does not move windows back (records count at the engine time)',
    events: [count('three', 3, 10)],
    records: [at(ip1, 100), at(ip1, 101), at(ip1, 50)],
    expect: [{ t: 101, event: 'three', key: ip1 }],
  },
  {
    name: 'time: after a step back, windows still end at the engine time',
    events: [count('three', 3, 10)],
    // 200 then 40, 41: both count at 200; at 209 all three are in the window (200 to 209).
    records: [at(ip1, 200), at(ip1, 40), at(ip1, 209)],
    expect: [{ t: 209, event: 'three', key: ip1 }],
  },
  {
    name: 'time: a clock stepping forward expires windows',
    events: [count('three', 3, 10)],
    records: [at(ip1, 0), at(ip1, 1), at(ip1, 1000), at(ip1, 1000.5), at(ip1, 1001)],
    expect: [{ t: 1001, event: 'three', key: ip1 }],
  },
];
