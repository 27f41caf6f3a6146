/**
 * A Vitest reporter (added beside the default one in vitest.config.ts) that makes skips visible:
 * after a run it prints how many tests were skipped and one line per skipped test with its reason
 * (the note given to `ctx.skip(reason)`, see tests/support/skip.ts). Under CI=true a skipped test
 * fails the run: CI installs everything the tests need, so a skip there means a test did not run.
 */
import type { Reporter, TestModule } from 'vitest/node';
import { recordTally } from './test-tally.ts';

export default class SkipReporter implements Reporter {
  async onTestRunEnd(modules: readonly TestModule[]): Promise<void> {
    const skipped: string[] = [];
    let passed = 0;
    let failed = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        if (result.state === 'failed') failed += 1;
        if (result.state !== 'skipped') continue;
        const reason =
          result.note ?? `no reason given (${test.options.mode === 'todo' ? 'todo' : 'skip without ctx.skip(reason)'})`;
        skipped.push(`skipped: ${module.relativeModuleId} > ${test.fullName}: ${reason}`);
      }
    }
    const ci = process.env.CI === 'true';
    console.log(
      `\n${skipped.length} test(s) skipped${skipped.length > 0 && ci ? ' (CI=true: a skipped test fails the run)' : ''}`,
    );
    for (const line of skipped) console.log(line);
    // One plain closing line per stage, and its counts for the closing line of `npm test`.
    const stage = modules[0]?.project.name || 'vitest';
    console.log(`${stage}: ${passed} passed, ${failed} failed, ${skipped.length} skipped`);
    await recordTally(stage, { passed, failed, skipped: skipped.length });
    if (ci && skipped.length > 0) process.exitCode = 1;
  }
}
