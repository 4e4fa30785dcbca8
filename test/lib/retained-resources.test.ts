import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import { cdkJsonContext, REPO_ROOT, SKIP_BUNDLING } from './support/cdk-app.js';

// docs/operators/teardown.md, "What is retained": its table must be what the templates say.
const outdir = mkdtempSync(join(tmpdir(), 'cdk-retained-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** `<stackPrefix>-<Stack>` -> retained resource types, from the table between the retained markers. */
function documented(): Map<string, string[]> {
  const doc = readFileSync(join(REPO_ROOT, 'docs/operators/teardown.md'), 'utf8');
  const table = /<!-- retained:start -->([\s\S]*?)<!-- retained:end -->/.exec(doc)?.[1] ?? '';
  const rows = new Map<string, string[]>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const stack = /^`<stackPrefix>-(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (!stack) continue;
    rows.set(stack, [...(cells[2] ?? '').matchAll(/`(AWS::[\w:]+)`/g)].map((m) => m[1] as string).sort());
  }
  return rows;
}

describe('what a destroy leaves behind', () => {
  let synthesized: Map<string, string[]>;
  beforeAll(() => {
    const { app, stackPrefix } = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, nag: false, outdir });
    synthesized = new Map();
    for (const stack of app.synth().stacks) {
      type Resources = Record<string, { Type: string; DeletionPolicy?: string }>;
      const resources = Object.values((stack.template as { Resources: Resources }).Resources);
      const retained = [...new Set(resources.filter((r) => r.DeletionPolicy && r.DeletionPolicy !== 'Delete').map((r) => r.Type))].sort();
      if (retained.length > 0) synthesized.set(stack.stackName.slice(stackPrefix.length + 1), retained);
    }
  }, 240_000);

  it('is exactly the table of docs/operators/teardown.md, stack by stack', () => {
    expect(Object.fromEntries(documented())).toEqual(Object.fromEntries(synthesized));
  });
});
