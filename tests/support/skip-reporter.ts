/**
 * A Vitest reporter (added beside the default one in vitest.config.ts) that makes skips visible:
 * after a run it prints how many tests were skipped and one line per skipped test with its reason
 * (the note given to `ctx.skip(reason)`, see tests/support/skip.ts). Under CI=true a skipped test
 * fails the run: CI installs everything the tests need, so a skip there means a test did not run.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    const skipped: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
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
    if (ci && skipped.length > 0) process.exitCode = 1;
  }
}
