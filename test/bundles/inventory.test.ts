import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER } from '../../lib/constructs/shared/platform-function.js';
import { CloudAssembly } from './support/cdk-out.js';
import { FUNCTIONS, NOT_OUR_BUNDLES } from './support/stage.js';

// Which bundles the stage must run: every AWS::Lambda::Function synth wrote, found through the
// templates and the asset manifests, never by guessing directory names.
const assembly = new CloudAssembly();
const functions = assembly.functions();
const ours = functions.filter((fn) => !NOT_OUR_BUNDLES.some((n) => n.match(fn)));

describe('the synthesized functions', () => {
  it('are exactly the ones the stage invokes, plus CDK\'s own handlers listed with a reason', () => {
    const notCovered = ours.map((fn) => fn.path).filter((path) => !Object.values(FUNCTIONS).includes(path as never));
    expect(notCovered, 'functions in cdk.out with no entry in FUNCTIONS (test/bundles/support/stage.ts) and no test').toEqual([]);
    const gone = Object.entries(FUNCTIONS).filter(([, path]) => !ours.some((fn) => fn.path === path));
    expect(gone, 'FUNCTIONS entries with no such function in cdk.out').toEqual([]);
    for (const exception of NOT_OUR_BUNDLES) {
      expect(functions.filter(exception.match), exception.reason).toHaveLength(1);
    }
  });

  it.each(ours.map((fn) => [fn.path, fn] as const))('%s: an ESM bundle with the house banner, on nodejs22.x', (_path, fn) => {
    expect(fn.runtime).toBe('nodejs22.x');
    const [moduleName] = fn.handler.split('.');
    const file = join(fn.codeDir, `${moduleName}.mjs`);
    expect(existsSync(file), `${file} (handler ${fn.handler})`).toBe(true);
    // The banner gives the ESM bundle a `require` for the CommonJS code it carries.
    expect(readFileSync(file, 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
  });
});
