import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../lib/constructs/shared/platform-function.js';
import { CDK_OUT, RUN_SYNTH_FIRST } from './cdk-out.js';

/** The newest source file the bundles are built from (a cdk.out older than it tests an earlier build). */
function newestSource(dir: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory() ? newestSource(path) : { file: path, mtimeMs: statSync(path).mtimeMs };
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** The stage reuses the synth step's cdk.out; without one it stops here, saying so. */
export default function setup(): void {
  const manifest = join(CDK_OUT, 'manifest.json');
  if (!existsSync(manifest)) throw new Error(RUN_SYNTH_FIRST);
  const written = statSync(manifest).mtimeMs;
  const newest = ['lambda', 'lib', 'edge']
    .map((d) => newestSource(join(REPO_ROOT, d)))
    .reduce((a, b) => (b && (!a || b.mtimeMs > a.mtimeMs) ? b : a), undefined);
  if (newest && newest.mtimeMs > written) {
    console.warn(
      `bundle stage: ${newest.file.slice(REPO_ROOT.length)} changed after cdk.out was written; ` +
      'these are the bundles of the earlier synth (run `npx cdk synth --quiet --all` to test the current sources)',
    );
  }
}
