import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../lib/support/cdk-app.js';

// docs/operators/deploy.md's offline commands, run as written (bash, in the repository root).

/** The shell code block of `page` that contains `marker`. */
export function codeBlock(page: string, marker: string): string {
  const text = readFileSync(join(REPO_ROOT, page), 'utf8');
  const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes(marker));
  if (!block) throw new Error(`${page} has no sh block with ${marker}`);
  return block;
}

describe('the second environment of docs/operators/deploy.md', () => {
  it('synthesizes as written: Staging-* stacks, its own domain, and no API Gateway account role', () => {
    const block = codeBlock('docs/operators/deploy.md', 'cdk synth --quiet -c stackPrefix=Staging');
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 420_000,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const out = join(REPO_ROOT, 'cdk.out');
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string }> };
    const stacks = Object.entries(manifest.artifacts).filter(([, a]) => a.type === 'aws:cloudformation:stack').map(([name]) => name);
    expect(stacks).toContain('Staging-EdgeZone');
    expect(stacks).toContain('Staging-Api');
    expect(stacks.every((s) => s.startsWith('Staging-'))).toBe(true);
    const api = readFileSync(join(out, 'Staging-Api.template.json'), 'utf8');
    expect(api).not.toContain('AWS::ApiGateway::Account');
    expect(existsSync(join(out, 'Staging-EdgeObservability.template.json'))).toBe(true);
    // The zone step names the stack the synth produced (it named MessagesPlatform-EdgeZone before).
    expect(codeBlock('docs/operators/deploy.md', 'cdk deploy Staging-EdgeZone')).toContain('-c stackPrefix=Staging');
  }, 480_000);
});
