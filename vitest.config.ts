import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The skip reporter prints every skipped test with its reason, and fails a CI=true run that skipped one.
    reporters: ['default', './tests/support/skip-reporter.ts'],
    projects: [
      {
        // The console's aliases (renderer/vite.config.ts), for unit tests of its pure modules.
        resolve: {
          alias: {
            $lib: fileURLToPath(new URL('renderer/src/lib', import.meta.url)),
            $components: fileURLToPath(new URL('renderer/src/components', import.meta.url)),
            $i18n: fileURLToPath(new URL('renderer/i18n', import.meta.url)),
          },
        },
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
