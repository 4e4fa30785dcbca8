import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Five projects, run in this order by scripts/test.sh:
// unit (pure code, adapters with aws-sdk-client-mock), infra (CDK assertions + cdk-nag),
// integration (real HTTP against the local platform with its emulators), browser (the dashboard
// in Debian's Chromium through playwright-core, against the local platform), and, after the synth
// step, bundles (every Lambda bundle synth wrote to cdk.out, invoked against the emulators).
// Quiet handlers in tests; the AWS SDK's Node 20 notice is about future releases, not these pins.
const env = {
  POWERTOOLS_SERVICE_NAME: 'test',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

// The worker imports the operator's processor through this alias (esbuild's alias in the bundle,
// tsconfig paths for the type check); tests that import the worker's handler get the default one.
const resolve = { alias: { '@platform/processor': fileURLToPath(new URL('./processors/default.ts', import.meta.url)) } };

export default defineConfig({
  test: {
    env,
    // One worker per core of this 2-core box (projects that need one file at a time say so).
    maxWorkers: 2,
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          env,
          include: ['test/lambda/**/*.test.ts', 'test/lib/config/**/*.test.ts', 'test/local/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/edge/**/*.test.ts', 'test/support/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/scripts/**/*.test.ts', 'test/processors/**/*.test.ts', 'test/contracts/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        resolve,
        test: {
          name: 'infra',
          env,
          include: ['test/lib/**/*.test.ts', 'test/bin/**/*.test.ts'],
          exclude: ['test/lib/config/**'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Two files at a time, one per core; each file's module graph (aws-cdk-lib) is loaded once
          // per worker, not once per file. Files build their own apps, except that the files split from
          // one (messages-api*, dashboard, domain-flow) share one read-only synth per worker through
          // their *.fixture.ts, which vitest does not re-evaluate between files with isolate: false.
          isolate: false,
        },
      },
      {
        resolve,
        test: {
          name: 'integration',
          env,
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two files at a time, one per core: each starts its own platform on free loopback ports,
          // with its own manual clock, so files share nothing.
        },
      },
      {
        resolve,
        test: {
          name: 'browser',
          env,
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files at a time, each with its own Chromium and its own platform on free ports.
        },
      },
      {
        resolve,
        test: {
          name: 'bundles',
          env,
          include: ['test/bundles/**/*.test.ts'],
          environment: 'node',
          // Reuses the synth step's cdk.out (never bundles again); fails at once when there is none.
          globalSetup: ['test/bundles/support/global-setup.ts'],
          // Bounded: an invocation waits at most its function's timeout (30 s at most here).
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
