import { defineConfig } from 'vitest/config';

// Three projects, run in this order by scripts/test.sh:
// unit (pure code, adapters with aws-sdk-client-mock), infra (CDK assertions + cdk-nag),
// integration (real HTTP against the local platform with its emulators).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/lambda/**/*.test.ts', 'test/lib/config/**/*.test.ts', 'test/local/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/lib/**/*.test.ts', 'test/bin/**/*.test.ts'],
          exclude: ['test/lib/config/**'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Synth bundles every Lambda with esbuild; one file at a time keeps a 2-core box responsive.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
