import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/lib/support/cdk-app.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The context of cdk.json (feature flags, stackPrefix): the CLI passes it to the app, so tests
 * that build the app themselves pass it too, to synthesize exactly what `cdk synth` does.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return { ...cdkJson.context };
}

/** Context that skips asset bundling (esbuild) in every stack: for tests that do not look at code. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;
