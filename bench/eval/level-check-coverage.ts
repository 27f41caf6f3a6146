/**
 * `npm run eval:level-check`: how much of CRS's level-2 SQL injection and XSS coverage level
 * normal's tokenizer check (engine/basic-rules/confirmation.ts) keeps. Each CRS regression case of
 * such a rule (the case's own rule must fire, CRS 3.3 and 4.x as tests/crs finds them) runs through
 * the WAF at paranoia level 4; the check then reads that rule's matches as at level normal.
 *
 * Prints per suite `level_check_<suite>_confirmed_pct` (cases of which one match is confirmed, or
 * left to count as written) and,
 * as comment lines, the count per rule with a few of the values it cleared.
 */
import { checkMatch, checkedFamily, familyOf, ruleParanoia } from '../../engine/basic-rules/confirmation.ts';
import { loadSuiteWaf, v3Options, v4Options, groupOfDir, type SuiteChoice } from '../../tests/crs/runner.ts';
import { readCases, yamlFiles } from '../../tests/crs/cases.ts';
import { line } from '../support.ts';

const SUITES: readonly [string, SuiteChoice][] = [
  ['v3', v3Options()],
  ['v4', v4Options()],
];

for (const [suite, choice] of SUITES) {
  if (!('options' in choice)) {
    console.log(`# level_check_${suite} skipped: ${choice.missing}`);
    continue;
  }
  const options = choice.options;
  const { waf } = await loadSuiteWaf(options, () => undefined);
  const build = options.build ?? { client: options.version === '3' ? 'ftw' : 'go-ftw' };
  const perRule = new Map<string, { confirmed: number; cleared: number; examples: string[] }>();
  for (const file of yamlFiles(options.testsDir)) {
    const group = groupOfDir(file.slice(options.testsDir.length));
    if (group !== '941' && group !== '942') continue;
    for (const regressionCase of readCases(file, group, build)) {
      const ruleId = regressionCase.id.split('-')[0]!;
      for (const stage of regressionCase.stages) {
        if (stage.request === undefined) continue;
        const matches = waf.inspect(stage.request).matched.filter((m) => m.id === ruleId);
        const first = matches[0];
        if (first === undefined || ruleParanoia(first.tags) !== 2) continue;
        const family = familyOf(first.tags);
        if (family === null) continue;
        let counts = perRule.get(ruleId);
        if (counts === undefined) perRule.set(ruleId, (counts = { confirmed: 0, cleared: 0, examples: [] }));
        // A match the check leaves alone (a capture, TX:1) counts as CRS wrote it: kept.
        if (matches.some((m) => checkedFamily(m) === null || checkMatch(m, family, 5).points === 0)) counts.confirmed++;
        else {
          counts.cleared++;
          if (counts.examples.length < 2) counts.examples.push(JSON.stringify(first.value.slice(0, 60)));
        }
      }
    }
  }
  let confirmed = 0;
  let cleared = 0;
  for (const [id, counts] of [...perRule].sort(([a], [b]) => a.localeCompare(b))) {
    confirmed += counts.confirmed;
    cleared += counts.cleared;
    console.log(
      `# ${suite} ${id}: ${counts.confirmed} confirmed, ${counts.cleared} cleared ${counts.examples.join(' ')}`,
    );
  }
  line(`level_check_${suite}_cases`, confirmed + cleared, 'cases');
  line(`level_check_${suite}_confirmed_pct`, (100 * confirmed) / Math.max(1, confirmed + cleared), '%', 1);
}
